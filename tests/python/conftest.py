"""Shared fixtures: the seed chapter's double pendulum in C++ and in Python."""
import os
from pathlib import Path

import numpy as np
import pytest

import kktdae
from py_models import PyPendulumChain

SOURCE_DIR = Path(os.environ.get("KKTDAE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
OUTPUT_DIR = Path(os.environ.get("KKTDAE_TEST_OUTPUT_DIR", "/tmp/kktdae-python-tests"))
SEED0_TILT = float(np.random.default_rng(0).uniform(-0.05, 0.05))


@pytest.fixture
def chain():
    return kktdae.PendulumChain(2)


@pytest.fixture
def py_chain():
    return PyPendulumChain(2)


@pytest.fixture
def state(chain):
    return chain.initial_state(SEED0_TILT)


@pytest.fixture
def moving_state(chain):
    """A state off rest and slightly off the manifold, so every term of the model is non-zero."""
    s = chain.initial_state(0.3)
    return kktdae.State(s.q + np.array([0.01, -0.02, 0.0, 0.03, 0.0, -0.01]),
                        np.array([0.3, -0.2, 0.1, -0.4, 0.5, 0.2]), 0.0)


@pytest.fixture
def output_dir(request):
    path = OUTPUT_DIR / request.node.name
    path.mkdir(parents=True, exist_ok=True)
    return path
