"""The adaptive integrators' Baumgarte-gain scan from Python (docs/notes/baumgarte-adaptive-gains.md): the grid's
extension, the ensemble per grid point with its error bars, ida_index1's ω·h̄ constant, and the
options' checks."""
import math

import numpy as np
import pytest

import kktdae


def test_ida_index1_omega_step_is_the_constant_recommend_baumgarte_uses():
    h = 2.5e-3
    rec = kktdae.recommend_baumgarte("ida_index1", 0.01, mean_step=h)
    assert rec.omega == pytest.approx(kktdae.IDA_INDEX1_OMEGA_STEP / h, rel=1e-15)


def test_path_digits_scales_each_coordinate_by_its_own_largest_reference_value():
    reference = np.array([[1.0, 0.0, -4.0], [-2.0, 0.0, 2.0]])
    path = reference.copy()
    assert kktdae.path_digits(path, reference) == 16.0
    path[0, 0] += 2e-4  # scale 2: 1e-4
    path[1, 2] += 4e-3  # scale 4: 1e-3
    assert kktdae.path_digits(path, reference) == pytest.approx(-math.log10(math.sqrt((1e-8 + 1e-6) / 2)))
    with pytest.raises(ValueError, match="outputs"):
        kktdae.path_digits(path[:1], reference)
    with pytest.raises(ValueError, match="shape"):
        kktdae.path_digits(path[0], reference)


def test_scan_with_an_ensemble_and_an_extension_reports_spreads_and_extends_while_the_work_is_flat(chain):
    start = chain.initial_state(0.3)
    reference = kktdae.adaptive_gain_reference_path(chain, start, 1.0, 20)
    assert reference.shape == (20, chain.nq())
    options = kktdae.AdaptiveGainOptions(integrators=["cvode_bdf"], tolerances=[1e-6], omegas=[1.0, 3.0],
                                         extend_max_omega=27.0, extend_work_factor=50.0, ensemble_size=3,
                                         smoothing_half_width=1, threads=1)
    scan = kktdae.scan_adaptive_gains(chain, start, 1.0, reference, options, name="chain2")
    best = scan.best[0]
    # Two gains of the grid's own ratio (3) per round while the top run's work stays below 50x
    # that of no feedback: 9 and 27, then the limit.
    assert best.omegas == pytest.approx([1.0, 3.0, 9.0, 27.0])
    assert len(scan.runs) == len(best.omegas) + 1
    for run in scan.runs:
        assert run.reached_end
        assert len(run.member_efficiency) == 3
        assert run.efficiency == pytest.approx(np.mean(run.member_efficiency), abs=1e-13)
        assert run.efficiency_spread == pytest.approx(np.std(run.member_efficiency, ddof=1), abs=1e-13)
    assert best.ensemble_spread > 0.0
    assert len(best.smoothed_error) == len(best.omegas) and min(best.smoothed_error) > 0.0
    place = kktdae.place_in_band(best, best.smoothed_best_omega)
    assert place.side == 0 and place.loss == pytest.approx(0.0, abs=1e-12)
    assert place.loss_error > 0.0
    with pytest.raises(ValueError, match="omega"):
        kktdae.place_in_band(best, 0.0)


def test_scan_options_name_the_bad_field(chain):
    start = chain.initial_state(0.3)
    reference = kktdae.adaptive_gain_reference_path(chain, start, 0.2, 4)
    for field, value in [("ensemble_size", 2), ("ensemble_step", 0.0), ("extend_work_factor", 1.0)]:
        options = kktdae.AdaptiveGainOptions(integrators=["cvode_bdf"], tolerances=[1e-5], omegas=[1.0, 2.0])
        setattr(options, field, value)
        with pytest.raises(ValueError, match=field):
            kktdae.scan_adaptive_gains(chain, start, 0.2, reference, options)
    with pytest.raises(TypeError, match="ensemble"):
        kktdae.AdaptiveGainOptions(ensemble=3)


def test_recommend_baumgarte_for_model_scan_mode_measures_the_gain_on_the_model(chain):
    start = chain.initial_state(0.3)
    rule = kktdae.recommend_baumgarte_for_model(chain, start, "cvode_bdf", 0.01,
                                                kktdae.ModelGuidanceOptions(horizon=1.0, tolerance=1e-5))
    assert rule.tuning.used is False and rule.tuning.runs == 0
    options = kktdae.ModelGuidanceOptions(horizon=1.0, tolerance=1e-5, adaptive_mode="scan")
    options.tuner.threads = 1
    assert options.adaptive_mode == kktdae.AdaptiveGainMode.SCAN
    g = kktdae.recommend_baumgarte_for_model(chain, start, kktdae.Integrator.CVODE_BDF, 0.01, options)
    t = g.tuning
    assert t.used, t.message
    best = t.best
    # The band's middle, inside the band; the rule's gain beside it, from the same measuring run.
    assert t.omega == math.sqrt(best.band_low * best.band_high)
    assert best.band_low <= t.omega <= best.band_high
    assert g.recommendation.omega == t.omega
    assert t.rule_omega == rule.recommendation.omega
    assert "measured on the model" in g.recommendation.reasoning
    # The coarse grid is the tuner grid (perhaps extended); the gain comes from the refinement's
    # grid around it, and every run and model call of both is counted.
    assert t.refined
    grid = kktdae.adaptive_gain_tuner_grid(g.time_scale.motion_rate, g.time_scale.mean_step, options.tuner)
    assert t.coarse.omegas[:len(grid)] == grid
    assert best.omegas == kktdae.adaptive_gain_refine_grid(t.coarse, options.tuner)
    assert len(t.coarse_runs) + len(t.scan_runs) == t.grid_points + 2
    assert {len(run.member_work) for run in t.coarse_runs} == {3}
    assert {len(run.member_work) for run in t.scan_runs} == {7}
    everything = t.coarse_runs + t.scan_runs
    assert t.runs == 1 + sum(len(run.member_work) for run in everything)
    assert t.model_calls == t.reference_model_calls + sum(sum(run.member_work) for run in everything)
    # Without the refinement the coarse scan is the answer, the same scan bit for bit.
    options.tuner.refine_per_decade = 0
    coarse = kktdae.recommend_baumgarte_for_model(chain, start, "cvode_bdf", 0.01, options).tuning
    assert coarse.used and not coarse.refined
    assert coarse.best.smoothed_efficiency == t.coarse.smoothed_efficiency
    assert coarse.omega == math.sqrt(coarse.best.band_low * coarse.best.band_high)
    assert len(coarse.scan_runs) == coarse.grid_points + 1


def test_tuner_options_are_checked_by_name():
    with pytest.raises(ValueError, match="grid_offset"):
        kktdae.AdaptiveGainTunerOptions(grid_offset=1.5).validate()
    with pytest.raises(ValueError, match="per_decade"):
        kktdae.ModelGuidanceOptions(tuner=kktdae.AdaptiveGainTunerOptions(per_decade=0)).validate()
    with pytest.raises(ValueError, match="refine_ensemble_size"):
        kktdae.AdaptiveGainTunerOptions(refine_ensemble_size=2).validate()
    with pytest.raises(ValueError, match="refine_candidate_tolerance"):
        kktdae.AdaptiveGainTunerOptions(refine_candidate_tolerance=0.01).validate()
    with pytest.raises(ValueError, match="AdaptiveGainMode"):
        kktdae.AdaptiveGainMode("sometimes")
    assert kktdae.AdaptiveGainMode("rule").label == "rule"
