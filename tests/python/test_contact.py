"""Event-driven contact from Python: the shipped ball's reference impact times and accumulation
time, a user's model with joint limits (a pendulum against a wall from JointLimits), the recording's
shapes, and bad input raising ValueError naming the gap or the integrator."""
import numpy as np
import pytest

import kktdae

BALL_TIMES = [0.451523640985731, 1.264266194760046, 1.995734493156931,
              2.654055961714126, 3.246545283415602, 3.779785672946931]


def test_the_ball_meets_its_references_and_comes_to_rest():
    result = kktdae.simulate_contact(kktdae.contact_problem("ball"))
    summary = result.summary
    assert summary.ok, summary.message
    times = [impact.t for impact in summary.impacts[:6]]
    assert np.max(np.abs(np.array(times) - BALL_TIMES)) <= 1e-12
    assert summary.impacts[0].name == "floor"
    assert abs(summary.impacts[0].v_minus - 4.429446918) <= 1e-9
    assert abs(summary.zeno_time - 8.578949179) <= 1e-6
    assert result.t.shape == (result.q.shape[0],) and result.lambda_N.shape == (result.t.shape[0], 1)
    assert result.t[-1] == 10.0
    assert result.lambda_N[-1, 0] == pytest.approx(9.81, rel=1e-12)  # resting on m g


def test_a_user_model_with_joint_limits_rebounds_with_e():
    pendulum = kktdae.PendulumChain(1)
    wall = kktdae.JointLimits(3, [kktdae.JointLimit.lower("wall", 0, 0.0, 0.5)])
    result = kktdae.simulate_contact(pendulum, wall, pendulum.initial_state(0.0),
                                     kktdae.ContactRunOptions(end_time=2.0))
    assert result.summary.ok, result.summary.message
    assert len(result.summary.impacts) == 2
    for impact in result.summary.impacts:
        assert abs(impact.v_plus - 0.5 * impact.v_minus) <= 1e-10 * impact.v_minus
    assert result.summary.zeno_time is None
    assert result.q.shape[1] == 3


def test_bad_input_is_refused_by_name():
    pendulum = kktdae.PendulumChain(1)
    with pytest.raises(ValueError, match="'wall'"):
        kktdae.JointLimits(3, [kktdae.JointLimit.lower("wall", 0, 0.0, 1.5)])
    wall = kktdae.JointLimits(3, [kktdae.JointLimit.lower("wall", 0, 2.0, 0.5)])  # the bob starts at x = 1 < 2
    with pytest.raises(ValueError, match="'wall'"):
        kktdae.simulate_contact(pendulum, wall, pendulum.initial_state(0.0))
    with pytest.raises(ValueError, match="cvode_bdf"):
        kktdae.simulate_contact(kktdae.contact_problem("ball"), kktdae.ContactRunOptions(integrator="cvode_bdf"))
    with pytest.raises(ValueError, match="limited_chain"):
        kktdae.contact_problem("box")
