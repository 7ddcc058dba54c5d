"""Type stub of kktdae's extension module (written by hand to match lib/python/src/*_bindings.cpp;
docstrings live in the module itself: help(kktdae.simulate))."""
from typing import Any, Callable, Generic, Iterable, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

from kktdae._recording import RecordedState
from kktdae._sizes import Size

ArrayLike = npt.ArrayLike
Array = npt.NDArray[np.float64]

class _Enum:
    """pybind11 enums: members by name, int(), .name, .value, and .label (the library's name)."""
    name: str
    value: int
    label: str
    def __init__(self, label: Union[str, int]) -> None: ...
    def __int__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

_Get = TypeVar("_Get")
_Set = TypeVar("_Set")

class _Field(Generic[_Get, _Set]):
    """A field read as _Get and assigned from the wider _Set, as the binding's setter converts: an enum
    from its label (opts.integrator = "rk4"), an array from any array-like. Reading gives _Get."""
    @overload
    def __get__(self, instance: None, owner: type) -> _Field[_Get, _Set]: ...
    @overload
    def __get__(self, instance: object, owner: type) -> _Get: ...
    def __set__(self, instance: object, value: _Set) -> None: ...

# --- core -------------------------------------------------------------------------------------
class State:
    t: float
    q: Array  # read-only copy, shape (nq,)
    v: Array  # read-only copy, shape (nq,)
    def __init__(self, q: ArrayLike, v: Optional[ArrayLike] = None, t: float = 0.0) -> None: ...
    def copy(self) -> State: ...

# --- integrators ------------------------------------------------------------------------------
class Integrator(_Enum):
    EULER: Integrator
    SEMI_IMPLICIT: Integrator
    RK4: Integrator
    CVODE_BDF: Integrator
    CVODE_ADAMS: Integrator
    IDA_INDEX1: Integrator
    IDA_GGL: Integrator
    RATTLE: Integrator
    GENERALIZED_ALPHA: Integrator
    HHT: Integrator
    convergence_order: int
    is_adaptive: bool

def all_integrators() -> List[Integrator]: ...

class NewtonLinearSolver(_Enum):
    AUTO: NewtonLinearSolver
    DENSE: NewtonLinearSolver
    SPARSE: NewtonLinearSolver
    KRYLOV: NewtonLinearSolver

class NewtonMatrix(_Enum):
    ANALYTIC: NewtonMatrix
    DIFFERENCE_QUOTIENT: NewtonMatrix

class AdaptiveOptions:
    rtol: float
    atol: float
    atol_per_component: _Field[Array, ArrayLike]
    ggl_multiplier_atol: float
    max_step: float
    max_steps: int
    initial_step: float
    stop_at_outputs: bool
    linear_solver: _Field[NewtonLinearSolver, Union[NewtonLinearSolver, str]]
    newton_matrix: _Field[NewtonMatrix, Union[NewtonMatrix, str]]
    krylov_dimension: int
    def __init__(self, *, rtol: float = ...,
                 atol: float = ...,
                 atol_per_component: ArrayLike = ...,
                 ggl_multiplier_atol: float = ...,
                 max_step: float = ...,
                 max_steps: int = ...,
                 initial_step: float = ...,
                 stop_at_outputs: bool = ...,
                 linear_solver: Union[NewtonLinearSolver, str] = ...,
                 newton_matrix: Union[NewtonMatrix, str] = ...,
                 krylov_dimension: int = ...) -> None: ...
    def validate(self, nq: int) -> None: ...

class RattleOptions:
    newton_tolerance: float
    newton_max_iterations: int
    def __init__(self, *, newton_tolerance: float = ...,
                 newton_max_iterations: int = ...) -> None: ...
    def validate(self) -> None: ...

class JacobianReuse(_Enum):
    EVERY_ITERATION: JacobianReuse
    EVERY_STEP: JacobianReuse
    UNTIL_SLOW: JacobianReuse

class IterationMatrix(_Enum):
    AUTO: IterationMatrix
    DENSE: IterationMatrix
    SPARSE: IterationMatrix

class GeneralizedAlphaOptions:
    rho_inf: float
    hht_alpha: float
    newton_tolerance: float
    newton_max_iterations: int
    jacobian_reuse: _Field[JacobianReuse, Union[JacobianReuse, str]]
    slow_convergence_ratio: float
    max_step_halvings: int
    iteration_matrix: _Field[IterationMatrix, Union[IterationMatrix, str]]
    def __init__(self, *, rho_inf: float = ...,
                 hht_alpha: float = ...,
                 newton_tolerance: float = ...,
                 newton_max_iterations: int = ...,
                 jacobian_reuse: Union[JacobianReuse, str] = ...,
                 slow_convergence_ratio: float = ...,
                 max_step_halvings: int = ...,
                 iteration_matrix: Union[IterationMatrix, str] = ...) -> None: ...
    def validate(self) -> None: ...

class GeneralizedAlphaParameters:
    alpha_m: float
    alpha_f: float
    beta: float
    gamma: float

def chung_hulbert_parameters(rho_inf: float) -> GeneralizedAlphaParameters: ...
def hht_parameters(alpha: float) -> GeneralizedAlphaParameters: ...

# --- stabilization ----------------------------------------------------------------------------
class SoftConstraint:
    timeconst: float
    dampratio: float
    dmin: float
    dmax: float
    width: float
    midpoint: float
    power: float
    def __init__(self, *, timeconst: float = ...,
                 dampratio: float = ...,
                 dmin: float = ...,
                 dmax: float = ...,
                 width: float = ...,
                 midpoint: float = ...,
                 power: float = ...) -> None: ...
    def impedance(self, violation: float) -> float: ...
    def validate(self) -> None: ...

class Stabilization:
    class Kind(_Enum):
        NONE: Stabilization.Kind
        BAUMGARTE: Stabilization.Kind
        SOFT: Stabilization.Kind
    kind: _Field[Stabilization.Kind, Union[Stabilization.Kind, str]]
    alpha: float
    beta: float
    soft: SoftConstraint
    project_after_step: bool
    def __init__(self, *, kind: Union[Stabilization.Kind, str] = ...,
                 alpha: float = ...,
                 beta: float = ...,
                 soft: SoftConstraint = ...,
                 project_after_step: bool = ...) -> None: ...
    @staticmethod
    def none() -> Stabilization: ...
    @staticmethod
    def baumgarte(alpha: float, beta: float) -> Stabilization: ...
    @staticmethod
    def from_damping_ratio(zeta: float, omega_n: float) -> Stabilization: ...
    @staticmethod
    def critical(omega: float) -> Stabilization: ...
    @staticmethod
    def projection() -> Stabilization: ...
    @staticmethod
    def soft_constraint(parameters: SoftConstraint = ...) -> Stabilization: ...
    def validate(self) -> None: ...
    def describe(self) -> str: ...

class ProjectionOptions:
    max_iterations: int
    tolerance: float
    def __init__(self, *, max_iterations: int = ...,
                 tolerance: float = ...) -> None: ...
    def validate(self) -> None: ...

class ProjectionReport:
    converged: bool
    roundoff_limited: bool
    iterations: int
    position_correction: float
    velocity_correction: float
    phi_before: float
    phi_after: float
    phi_dot_before: float
    phi_dot_after: float
    message: str

def project_to_manifold(system: ConstrainedSystem, state: State,
                        options: ProjectionOptions = ...) -> Tuple[State, ProjectionReport]: ...

class BaumgarteRecommendation:
    stabilization: Stabilization
    omega: float
    dt_omega: float
    dt_omega_limit: float
    reasoning: str

class BaumgarteGuidanceOptions:
    zeta: float
    safety: float
    motion_rate: float
    mean_step: float
    horizon: float
    measured_limit: float
    def __init__(self, *, zeta: float = ...,
                 safety: float = ...,
                 motion_rate: float = ...,
                 mean_step: float = ...,
                 horizon: float = ...,
                 measured_limit: float = ...) -> None: ...
    def validate(self) -> None: ...

def recommend_baumgarte(integrator: Union[Integrator, str], dt: float, zeta: Optional[float] = None,
                        safety: Optional[float] = None, *, motion_rate: Optional[float] = None,
                        mean_step: Optional[float] = None, horizon: Optional[float] = None,
                        measured_limit: Optional[float] = None,
                        options: Optional[BaumgarteGuidanceOptions] = None) -> BaumgarteRecommendation: ...
IDA_INDEX1_OMEGA_STEP_PER_RADIAN: float
def adaptive_stiffness_cap(integrator: Union[Integrator, str]) -> float: ...
def baumgarte_stability_limit(integrator: Union[Integrator, str], zeta: float) -> float: ...
def error_step_spectral_radius(integrator: Union[Integrator, str], dt: float, alpha: float, beta: float) -> float: ...
def error_step_matrix(integrator: Union[Integrator, str], dt: float, alpha: float, beta: float) -> Array: ...
def baumgarte_error_at(alpha: float, beta: float, e0: float, e_dot0: float, t: float) -> Tuple[float, float]: ...

# --- kkt --------------------------------------------------------------------------------------
class KktForm(_Enum):
    SCHUR: KktForm
    BLOCK: KktForm

class KktPath(_Enum):
    AUTO: KktPath
    DENSE: KktPath
    SPARSE: KktPath

class RankDeficiencyPolicy(_Enum):
    FAIL: RankDeficiencyPolicy
    MINIMUM_NORM: RankDeficiencyPolicy
    REGULARIZE: RankDeficiencyPolicy

class KktStatus(_Enum):
    OK: KktStatus
    SINGULAR: KktStatus
    ILL_CONDITIONED: KktStatus
    NON_FINITE: KktStatus

class KktOptions:
    form: _Field[KktForm, Union[KktForm, str]]
    min_rcond: float
    estimate_condition: bool
    rank_deficiency: _Field[RankDeficiencyPolicy, Union[RankDeficiencyPolicy, str]]
    rank_tolerance: float
    regularization: float
    path: _Field[KktPath, Union[KktPath, str]]
    sparse_min_coordinates: int
    def __init__(self, *, form: Union[KktForm, str] = ...,
                 min_rcond: float = ...,
                 estimate_condition: bool = ...,
                 rank_deficiency: Union[RankDeficiencyPolicy, str] = ...,
                 rank_tolerance: float = ...,
                 regularization: float = ...,
                 path: Union[KktPath, str] = ...,
                 sparse_min_coordinates: int = ...) -> None: ...
    def validate(self) -> None: ...

class KktSolution:
    status: KktStatus
    ok: bool
    rcond: float
    message: str
    offending_rows: List[int]
    rank_deficient: bool
    qdd: Array
    lam: Array
    phi: Array
    phi_dot: Array
    gamma: Array
    jacobian: Array

def solve_kkt(system: ConstrainedSystem, q: ArrayLike, v: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None,
              stabilization: Stabilization = ..., options: KktOptions = ...) -> KktSolution: ...

# --- system -----------------------------------------------------------------------------------
class MassStructure(_Enum):
    GENERAL: MassStructure
    DIAGONAL: MassStructure
    CONSTANT_DIAGONAL: MassStructure

class ConstrainedSystem:
    """Subclass it in Python: define nq, nc, bias, constraint, constraint_jacobian, constraint_bias,
    potential_energy and mass_matrix (or mass_structure + mass_diagonal); call super().__init__()."""
    def __init__(self) -> None: ...
    def name(self) -> str: ...
    def nq(self) -> int: ...
    def nc(self) -> int: ...
    def nu(self) -> int: ...
    def mass_structure(self) -> MassStructure: ...
    def is_time_dependent(self) -> bool: ...
    def bias_depends_on_state(self) -> bool: ...
    def is_conservative(self) -> bool: ...
    def energy_scale(self) -> float: ...
    def mass_matrix(self, q: ArrayLike) -> Array: ...
    def mass_diagonal(self, q: ArrayLike) -> Array: ...
    def bias(self, q: ArrayLike, v: ArrayLike, t: float = 0.0) -> Array: ...
    def input_map(self, q: ArrayLike, t: float = 0.0) -> Array: ...
    def constraint(self, q: ArrayLike, t: float = 0.0) -> Array: ...
    def constraint_jacobian(self, q: ArrayLike, t: float = 0.0) -> Array: ...
    def constraint_time_derivative(self, q: ArrayLike, t: float = 0.0) -> Array: ...
    def constraint_bias(self, q: ArrayLike, v: ArrayLike, t: float = 0.0) -> Array: ...
    def kinetic_energy(self, q: ArrayLike, v: ArrayLike) -> float: ...
    def potential_energy(self, q: ArrayLike, t: float = 0.0) -> float: ...
    def total_energy(self, q: ArrayLike, v: ArrayLike, t: float = 0.0) -> float: ...
    def jacobian_non_zeros(self) -> int: ...

class DerivativeCheckReport:
    jacobian_error: float
    jacobian_scale: float
    time_derivative_error: float
    bias_error: float
    bias_scale: float
    mass_asymmetry: float
    sparse_jacobian_error: float
    def worst_relative_error(self) -> float: ...
    def describe(self) -> str: ...

def check_derivatives(system: ConstrainedSystem, q: ArrayLike, v: ArrayLike, t: float = 0.0,
                      relative_step: float = 6e-6) -> DerivativeCheckReport: ...

class ModelProblem(_Enum):
    INVALID_SIZE: ModelProblem
    THREW: ModelProblem
    UNWRITTEN: ModelProblem
    DEPENDS_ON_OUTPUT: ModelProblem
    WRITES_PAST_END: ModelProblem
    NON_FINITE: ModelProblem
    MASS_ASYMMETRIC: ModelProblem
    MASS_NOT_POSITIVE_DEFINITE: ModelProblem
    MASS_DIAGONAL_MISMATCH: ModelProblem
    MASS_STRUCTURE_VIOLATED: ModelProblem
    JACOBIAN_MISMATCH: ModelProblem
    TIME_DERIVATIVE_MISMATCH: ModelProblem
    GAMMA_MISMATCH: ModelProblem
    SPARSE_PATTERN_INVALID: ModelProblem
    SPARSE_VALUES_MISMATCH: ModelProblem
    KINETIC_ENERGY_MISMATCH: ModelProblem
    BIAS_NOT_CONSERVATIVE: ModelProblem
    EVALUATE_TERMS_MISMATCH: ModelProblem

class ModelFinding:
    problem: ModelProblem
    method: str
    entry: Tuple[int, int]  # (row, col); col -1 for vectors, (-1, -1) for a whole output
    row: int
    col: int
    expected: float
    got: float
    state_index: int
    state: Optional[State]
    detail: str
    def describe(self) -> str: ...

class ModelCheckOptions:
    relative_tolerance: float
    absolute_tolerance: float
    relative_step: float
    terms_relative_tolerance: float
    check_conservative_bias: bool
    random_states: int
    random_scale: float
    random_seed: int
    max_findings_per_kind: int
    def __init__(self, *, relative_tolerance: float = ...,
                 absolute_tolerance: float = ...,
                 relative_step: float = ...,
                 terms_relative_tolerance: float = ...,
                 check_conservative_bias: bool = ...,
                 random_states: int = ...,
                 random_scale: float = ...,
                 random_seed: int = ...,
                 max_findings_per_kind: int = ...) -> None: ...
    def validate(self) -> None: ...

class ModelCheckReport:
    model: str
    states: List[State]
    findings: List[ModelFinding]
    omitted_findings: int
    ok: bool
    def __bool__(self) -> bool: ...
    def describe(self) -> str: ...

def check_model(system: ConstrainedSystem, states: Optional[Sequence[State]] = None,
                options: ModelCheckOptions = ...) -> ModelCheckReport: ...

# --- parametric models (docs/sensitivities.md) -------------------------------------------------
class ParameterDerivativeCheck:
    dynamics_parameter_error: float
    constraint_parameter_error: float
    tangent_error: float
    constraint_tangent_error: float

class ParametricSystem(ConstrainedSystem):
    def np(self) -> int: ...
    def parameter_names(self) -> List[str]: ...
    def parameter_values(self) -> Array: ...
    def parameter_index(self, name: str) -> int: ...
    def with_parameter_values(self, p: ArrayLike) -> ParametricSystem: ...
    def with_parameters(self, **values: float) -> ParametricSystem: ...
    def dynamics_parameter_jacobian(self, q: ArrayLike, v: ArrayLike, a: ArrayLike, t: float = 0.0) -> Array: ...
    def check_parameter_derivatives(self, q: ArrayLike, v: ArrayLike, a: ArrayLike, t: float, dq: ArrayLike,
                                    dv: ArrayLike, step: float = 1e-5) -> ParameterDerivativeCheck: ...

class SpringSliderCrankParams:
    a: float
    crank_inertia: float
    rod_mass: float
    rod_inertia: float
    stiffness: float
    damping: float
    free_length: float
    force: float
    def __init__(self, *, a: float = ...,
                 crank_inertia: float = ...,
                 rod_mass: float = ...,
                 rod_inertia: float = ...,
                 stiffness: float = ...,
                 damping: float = ...,
                 free_length: float = ...,
                 force: float = ...) -> None: ...
    def validate(self) -> None: ...

class SpringSliderCrank(ParametricSystem):
    params: SpringSliderCrankParams
    def __init__(self, params: SpringSliderCrankParams = ...) -> None: ...
    def initial_state(self) -> State: ...

# --- models -----------------------------------------------------------------------------------
class PendulumChainParams:
    masses: List[float]
    lengths: List[float]
    gravity: float
    pivot: _Field[Array, ArrayLike]
    def __init__(self, *, masses: List[float] = ...,
                 lengths: List[float] = ...,
                 gravity: float = ...,
                 pivot: ArrayLike = ...) -> None: ...
    @staticmethod
    def uniform(links: int, mass: float = 1.0, length: float = 1.0) -> PendulumChainParams: ...
    def validate(self) -> None: ...

class PendulumChain(ParametricSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    links: int
    params: PendulumChainParams
    def __init__(self, params_or_links: Union[PendulumChainParams, int], mass: float = 1.0,
                 length: float = 1.0) -> None: ...
    def initial_state(self, tilt: float) -> State: ...
    # A float for q of shape (nq,), an array (n,) for rows of shape (n, nq).
    def link_length_violation(self, q: ArrayLike) -> Any: ...
    def energy_scale(self) -> float: ...
    def tip(self, q: ArrayLike) -> Array: ...

class SpringChainParams:
    chain: PendulumChainParams
    joint_stiffness: float
    joint_damping: float
    def __init__(self, *, chain: PendulumChainParams = ...,
                 joint_stiffness: float = ...,
                 joint_damping: float = ...) -> None: ...
    def validate(self) -> None: ...

class SpringChain(ParametricSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    links: int
    params: SpringChainParams
    def __init__(self, params: SpringChainParams) -> None: ...
    def initial_state(self, tilt: float) -> State: ...
    def joint_angle(self, q: ArrayLike, joint: int) -> float: ...
    def tip(self, q: ArrayLike) -> Array: ...

class CircleMassParams:
    mass: float
    gravity: float
    radius: float
    def __init__(self, *, mass: float = ...,
                 gravity: float = ...,
                 radius: float = ...) -> None: ...
    def validate(self) -> None: ...

class CircleMass(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    params: CircleMassParams
    def __init__(self, params: CircleMassParams = ...) -> None: ...
    def initial_state(self, x0_over_radius: float = 1.01) -> State: ...

class AndrewsSqueezer(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    def __init__(self) -> None: ...

class CarAxis(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    def __init__(self) -> None: ...

class PointOnPlaneParams:
    dimension: int
    mass: float
    gravity: float
    normal: _Field[Array, ArrayLike]
    offset: float
    def __init__(self, *, dimension: int = ...,
                 mass: float = ...,
                 gravity: float = ...,
                 normal: ArrayLike = ...,
                 offset: float = ...) -> None: ...
    def validate(self) -> None: ...

class PointOnPlane(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    params: PointOnPlaneParams
    def __init__(self, params: PointOnPlaneParams = ...) -> None: ...
    def off_manifold_state(self, e0: float, edot0: float, sliding: float = 0.0) -> State: ...

class FourBarBranch(_Enum):
    OPEN: FourBarBranch
    CROSSED: FourBarBranch

class FourBarParams:
    ground: float
    crank: float
    coupler: float
    rocker: float
    mass_b: float
    mass_c: float
    mass_p: float
    point_along: float
    point_normal: float
    gravity: float
    def __init__(self, *, ground: float = ...,
                 crank: float = ...,
                 coupler: float = ...,
                 rocker: float = ...,
                 mass_b: float = ...,
                 mass_c: float = ...,
                 mass_p: float = ...,
                 point_along: float = ...,
                 point_normal: float = ...,
                 gravity: float = ...) -> None: ...
    def validate(self) -> None: ...

class FourBar(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    params: FourBarParams
    def __init__(self, params: FourBarParams = ...) -> None: ...

def assemble_four_bar(params: FourBarParams, crank_angle: float, branch: FourBarBranch = ...) -> Array: ...
def four_bar_state(params: FourBarParams, crank_angle: float, crank_rate: float, branch: FourBarBranch = ...,
                   t: float = 0.0) -> State: ...
def four_bar_twin(params: FourBarParams) -> ParticleSystemParams: ...

class SliderCrankBranch(_Enum):
    RIGHT: SliderCrankBranch
    LEFT: SliderCrankBranch

class SliderCrankParams:
    crank: float
    rod: float
    offset: float
    mass_b: float
    mass_slider: float
    mass_p: float
    point_along: float
    point_normal: float
    gravity: float
    def __init__(self, *, crank: float = ...,
                 rod: float = ...,
                 offset: float = ...,
                 mass_b: float = ...,
                 mass_slider: float = ...,
                 mass_p: float = ...,
                 point_along: float = ...,
                 point_normal: float = ...,
                 gravity: float = ...) -> None: ...
    def validate(self) -> None: ...

class SliderCrank(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    params: SliderCrankParams
    def __init__(self, params: SliderCrankParams = ...) -> None: ...

def assemble_slider_crank(params: SliderCrankParams, crank_angle: float, branch: SliderCrankBranch = ...) -> Array: ...
def slider_crank_state(params: SliderCrankParams, crank_angle: float, crank_rate: float,
                       branch: SliderCrankBranch = ..., t: float = 0.0) -> State: ...
def slider_crank_twin(params: SliderCrankParams, slider_force: float = 0.0) -> ParticleSystemParams: ...

class PointRef:
    class Kind(_Enum):
        PARTICLE: PointRef.Kind
        ANCHOR: PointRef.Kind
    kind: PointRef.Kind
    index: int
    @staticmethod
    def particle(index: int) -> PointRef: ...
    @staticmethod
    def anchor(index: int) -> PointRef: ...

class DistanceConstraintSpec:
    a: PointRef
    b: PointRef
    length: float
    def __init__(self, a: PointRef, b: PointRef, length: float = 1.0) -> None: ...

class LineConstraintSpec:
    particle: int
    point: Array
    direction: Array
    def __init__(self, particle: int = 0, point: Optional[ArrayLike] = None,
                 direction: Optional[ArrayLike] = None) -> None: ...

class ParticleSpec:
    mass: float
    force: Array
    def __init__(self, mass: float = 1.0, force: Optional[ArrayLike] = None) -> None: ...

class ParticleSystemParams:
    dimension: int
    gravity: float
    particles: List[ParticleSpec]
    anchors: List[Array]
    distances: List[DistanceConstraintSpec]
    lines: List[LineConstraintSpec]
    def __init__(self, *, dimension: int = ...,
                 gravity: float = ...,
                 particles: List[ParticleSpec] = ...,
                 anchors: List[Array] = ...,
                 distances: List[DistanceConstraintSpec] = ...,
                 lines: List[LineConstraintSpec] = ...) -> None: ...
    @staticmethod
    def from_pendulum_chain(chain: PendulumChainParams) -> ParticleSystemParams: ...
    def validate(self) -> None: ...

class ParticleSystem(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    dimension: int
    particles: int
    params: ParticleSystemParams
    def __init__(self, params: ParticleSystemParams) -> None: ...
    def position(self, q: ArrayLike, index: int) -> Array: ...
    def make_state(self, positions: Iterable[ArrayLike], velocities: Optional[Iterable[ArrayLike]] = None,
                   t: float = 0.0) -> State: ...

# --- multibody --------------------------------------------------------------------------------
class JointKind(_Enum):
    SPHERICAL: JointKind
    REVOLUTE: JointKind
    UNIVERSAL: JointKind
    CYLINDRICAL: JointKind
    PRISMATIC: JointKind
    PLANAR: JointKind
    FIXED: JointKind
    POINT_ON_LINE: JointKind
    DISTANCE: JointKind

class Frame:
    origin: Array  # shape (3,)
    rotation: Array  # shape (3, 3)
    def __init__(self, origin: ArrayLike, rotation: Optional[ArrayLike] = None) -> None: ...
    @staticmethod
    def along_z(origin: ArrayLike, axis: ArrayLike) -> Frame: ...
    @staticmethod
    def planar(x: float, y: float, angle: float = 0.0) -> Frame: ...

class JointMotion:
    @staticmethod
    def polynomial(s0: float, rate: float, acceleration: float = 0.0) -> JointMotion: ...
    @staticmethod
    def sinusoid(s0: float, amplitude: float, omega: float) -> JointMotion: ...

class Mechanism(ConstrainedSystem):
    # Sizes as numbers that also call: chain.nq == chain.nq() == 6 (kktdae/_sizes.py).
    @property
    def nq(self) -> Size: ...  # type: ignore[override]
    @property
    def nc(self) -> Size: ...  # type: ignore[override]
    @property
    def nu(self) -> Size: ...  # type: ignore[override]
    body_count: int
    joint_count: int
    def body_index(self, name: str) -> int: ...
    def joint_index(self, name: str) -> int: ...
    def body_offset(self, body: int) -> int: ...
    def joint_first_row(self, joint: int) -> int: ...
    def joint_row_count(self, joint: int) -> int: ...
    def driver_row(self, joint: int) -> int: ...
    def built_configuration(self) -> Array: ...
    def point_position(self, body: int, point: ArrayLike, q: ArrayLike) -> Array: ...
    def rotation(self, body: int, q: ArrayLike) -> Array: ...
    def joint_coordinates(self, joint: int, q: ArrayLike) -> Array: ...
    def joint_rates(self, joint: int, q: ArrayLike, v: ArrayLike) -> Array: ...
    def reaction(self, joint: int, q: ArrayLike, lam: ArrayLike) -> Tuple[Array, Array]: ...

GROUND: int

class MechanismBuilder:
    def __init__(self, name: str) -> None: ...
    def add_planar_body(self, name: str, mass: float, inertia: float, x: float = 0.0, y: float = 0.0,
                        angle: float = 0.0) -> int: ...
    def add_spatial_body(self, name: str, mass: float, centre_of_mass: ArrayLike, inertia: ArrayLike,
                         position: ArrayLike, rotation: Optional[ArrayLike] = None) -> int: ...
    def add_pivoted_body(self, name: str, mass: float, centre_of_mass: ArrayLike, inertia: ArrayLike,
                         pivot: ArrayLike, pivot_in_space: ArrayLike, rotation: Optional[ArrayLike] = None) -> int: ...
    def add_joint(self, name: str, kind: Union[JointKind, str], body_a: int, frame_a: Frame, body_b: int,
                  frame_b: Frame, length: float = 0.0) -> int: ...
    def drive(self, joint: int, motion: JointMotion) -> None: ...
    def set_gravity(self, gravity: ArrayLike) -> None: ...
    def add_spring(self, name: str, body_a: int, point_a: ArrayLike, body_b: int, point_b: ArrayLike,
                   stiffness: float, damping: float = 0.0, rest_length: float = 0.0) -> None: ...
    def add_rotational_spring(self, name: str, joint: int, stiffness: float, damping: float = 0.0,
                              rest_angle: float = 0.0, constant_torque: float = 0.0) -> None: ...
    def add_actuator(self, name: str, joint: int) -> int: ...
    def build(self) -> Mechanism: ...

class AssemblyOptions:
    max_iterations: int
    tolerance: float
    rank_deficiency: _Field[RankDeficiencyPolicy, Union[RankDeficiencyPolicy, str]]
    rank_tolerance: float
    def __init__(self, *, max_iterations: int = ...,
                 tolerance: float = ...,
                 rank_deficiency: Union[RankDeficiencyPolicy, str] = ...,
                 rank_tolerance: float = ...) -> None: ...

class AssemblyReport:
    converged: bool
    iterations: int
    residual: float
    velocity_residual: float
    rank: int
    dependent_rows: List[int]
    failing_joint: str
    message: str

def assemble(mechanism: Mechanism, state: State, rates: Sequence[Tuple[int, float]] = ...,
             options: AssemblyOptions = ...) -> Tuple[State, AssemblyReport]: ...

# --- simulate ---------------------------------------------------------------------------------
class EventDirection(_Enum):
    RISING: EventDirection
    FALLING: EventDirection
    EITHER: EventDirection

class EventAction(_Enum):
    RECORD: EventAction
    STOP: EventAction
    CALLBACK: EventAction

class EventDecision(_Enum):
    CONTINUE: EventDecision
    STOP: EventDecision

class FiredEvent:
    name: str
    event: int
    component: int
    time: float
    step: int
    direction: EventDirection
    value: float
    q: Array    # (nq,)
    v: Array    # (nq,)
    lam: Array  # (nc,)

class Event:
    name: str
    size: int
    g: Optional[Callable[[float, Array, Array, Array], ArrayLike]]
    direction: _Field[EventDirection, Union[EventDirection, str]]
    action: _Field[EventAction, Union[EventAction, str]]
    callback: Optional[Callable[[FiredEvent], Optional[EventDecision]]]
    time_tolerance: float
    def __init__(self, *, name: str = ...,
                 size: int = ...,
                 g: Optional[Callable[[float, Array, Array, Array], ArrayLike]] = ...,
                 direction: Union[EventDirection, str] = ...,
                 action: Union[EventAction, str] = ...,
                 callback: Optional[Callable[[FiredEvent], Optional[EventDecision]]] = ...,
                 time_tolerance: float = ...) -> None: ...
    def validate(self) -> None: ...

class RunStatus(_Enum):
    NOT_RUN: RunStatus
    SUCCESS: RunStatus
    KKT_FAILURE: RunStatus
    NON_FINITE_STATE: RunStatus
    SOLVER_FAILURE: RunStatus
    INIT_FAILURE: RunStatus
    PROJECTION_FAILURE: RunStatus
    DIVERGED: RunStatus
    MODEL_ERROR: RunStatus
    INTERRUPTED: RunStatus
    STOPPED_BY_EVENT: RunStatus

class WarningKind(_Enum):
    VIOLATION_ABOVE_THRESHOLD: WarningKind
    RANK_DEFICIENT_SOLVE: WarningKind
    PROJECTION_STALLED: WarningKind
    OFF_MANIFOLD_START: WarningKind

class RunWarning:
    kind: WarningKind
    count: int
    first_step: int
    first_time: float
    first_detail: str

class Summary:
    status: RunStatus
    message: str
    integrator: Integrator
    form: KktForm
    sparse: bool
    linear_solver: str
    steps: int
    outputs: int
    kkt_solves: int
    rhs_evaluations: int
    jacobian_evaluations: int
    newton_model_evaluations: int
    newton_iterations: int
    linear_solver_setups: int
    error_test_failures: int
    convergence_failures: int
    last_step: float
    projections: int
    projection_iterations: int
    max_position_correction: float
    max_velocity_correction: float
    notes: str
    t_final: float
    failed_step: int
    wall_seconds: float
    max_phi_inf: float
    max_phi_dot_inf: float
    final_phi_inf: float
    final_phi_dot_inf: float
    min_rcond: float
    rank_deficient_solves: int
    min_constraint_rank: int
    warnings: List[RunWarning]
    events: List[FiredEvent]
    event_kkt_solves: int
    observation_kkt_solves: int
    event_evaluations: int
    stopped_by_event: bool
    def warning_count(self, kind: WarningKind) -> int: ...
    ok: bool
    def brief_report(self) -> str: ...
    def __bool__(self) -> bool: ...

class DivergenceOptions:
    enabled: bool
    manifold_factor: float
    state_growth: float
    min_scale: float
    max_phi_inf: float
    velocity_factor: float
    min_velocity_scale: float
    energy_factor: float
    runaway_check_every: int
    def __init__(self, *, enabled: bool = ...,
                 manifold_factor: float = ...,
                 state_growth: float = ...,
                 min_scale: float = ...,
                 max_phi_inf: float = ...,
                 velocity_factor: float = ...,
                 min_velocity_scale: float = ...,
                 energy_factor: float = ...,
                 runaway_check_every: int = ...) -> None: ...
    def validate(self) -> None: ...

class ObservedMultiplier(_Enum):
    PHYSICAL: ObservedMultiplier
    METHOD: ObservedMultiplier

def physical_multiplier_law(stabilization: Stabilization, integrator: Union[Integrator, str]) -> Stabilization: ...

class SimulationOptions:
    integrator: _Field[Integrator, Union[Integrator, str]]
    dt: float
    steps: Optional[int]
    end_time: Optional[float]
    warn_phi_inf: float
    observe_every: int
    adaptive: AdaptiveOptions
    rattle: RattleOptions
    generalized_alpha: GeneralizedAlphaOptions
    projection: ProjectionOptions
    project_initial_state: bool
    stabilization: Stabilization
    kkt: KktOptions
    divergence: DivergenceOptions
    observed_multiplier: _Field[ObservedMultiplier, Union[ObservedMultiplier, str]]
    events: List[Event]
    event_observer: Optional[Callable[[FiredEvent], object]]
    def __init__(self, *, integrator: Union[Integrator, str] = ...,
                 dt: float = ...,
                 steps: Optional[int] = ...,
                 end_time: Optional[float] = ...,
                 warn_phi_inf: float = ...,
                 observe_every: int = ...,
                 adaptive: AdaptiveOptions = ...,
                 rattle: RattleOptions = ...,
                 generalized_alpha: GeneralizedAlphaOptions = ...,
                 projection: ProjectionOptions = ...,
                 project_initial_state: bool = ...,
                 stabilization: Stabilization = ...,
                 kkt: KktOptions = ...,
                 divergence: DivergenceOptions = ...,
                 observed_multiplier: Union[ObservedMultiplier, str] = ...,
                 events: List[Event] = ...,
                 event_observer: Optional[Callable[[FiredEvent], object]] = ...) -> None: ...
    def validate(self) -> None: ...

class Recording:
    t: Array          # (n,)
    q: Array          # (n, nq)
    v: Array          # (n, nq)
    lam: Array        # (n, nc)
    violation: Array  # (n,) ‖φ‖∞
    energy: Array     # (n,) T + V
    violation_measure: str  # what violation holds, in words and units
    def __init__(self, *, t: ArrayLike, q: ArrayLike, v: ArrayLike, lam: ArrayLike, violation: ArrayLike,
                 energy: ArrayLike, violation_measure: str = "") -> None: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> RecordedState: ...
    @overload
    def __getitem__(self, index: slice) -> Recording: ...
    def __iter__(self) -> Iterator[RecordedState]: ...

class SimulationResult:
    summary: Summary
    recording: Optional[Recording]
    exception: Optional[BaseException]  # the Python exception that ended a MODEL_ERROR run
    def raise_on_failure(self) -> SimulationResult: ...

def simulate(system: ConstrainedSystem, initial: State, options: SimulationOptions = ...,
             observer: Optional[Callable[[float, Array, Array, Array], object]] = None,
             controller: Optional[Callable[[float, Array, Array], ArrayLike]] = None,
             record: bool = True) -> SimulationResult: ...

def sweep(system: Union[ConstrainedSystem, Sequence[ConstrainedSystem]], initial: Union[State, Sequence[State]],
          options: Union[SimulationOptions, Sequence[SimulationOptions]] = ..., *, threads: int = 0,
          record: bool = True) -> List[SimulationResult]: ...

# --- sensitivities (docs/sensitivities.md) -----------------------------------------------------
class MechanismParameter:
    name: str
    kind: str  # 'body_mass', 'body_inertia', 'gravity', 'spring_stiffness', ...
    element: int
    component: int
    value: float

def declared_parameters(mechanism: Mechanism) -> List[MechanismParameter]: ...

class ParametricMechanism(ParametricSystem):
    mechanism: Mechanism
    parameters: List[MechanismParameter]
    def __init__(self, mechanism: Mechanism, names: List[str] = ...) -> None: ...

class SensitivityMethod(_Enum):
    FORWARD: SensitivityMethod
    FD: SensitivityMethod

class Integrand:
    value: Callable[[float, Array, Array, Array, Array], float]
    gradient: Callable[[float, Array, Array, Array, Array], Tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike]]
    def __init__(self, value: Callable[[float, Array, Array, Array, Array], float],
                 gradient: Callable[[float, Array, Array, Array, Array],
                                    Tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike]]) -> None: ...

class InitialStateDirection:
    name: str
    dq: _Field[Array, ArrayLike]
    dv: _Field[Array, ArrayLike]
    def __init__(self, *, name: str = ...,
                 dq: ArrayLike = ...,
                 dv: ArrayLike = ...) -> None: ...

class SensitivityOptions:
    method: _Field[SensitivityMethod, Union[SensitivityMethod, str]]
    parameters: List[str]
    integrand: Union[None, str, Integrand]
    initial_state: List[InitialStateDirection]
    initial_state_parameter_jacobian: _Field[Optional[Array], Optional[ArrayLike]]  # (2 nq, np)
    record_trajectory: bool
    multiplier_atol: float
    difference_step: float
    def __init__(self, *, method: Union[SensitivityMethod, str] = ...,
                 parameters: List[str] = ...,
                 integrand: Union[None, str, Integrand] = ...,
                 initial_state: List[InitialStateDirection] = ...,
                 initial_state_parameter_jacobian: Optional[ArrayLike] = ...,
                 record_trajectory: bool = ...,
                 multiplier_atol: float = ...,
                 difference_step: float = ...) -> None: ...
    def validate(self) -> None: ...

class SensitivitySummary:
    status: RunStatus
    message: str
    method: SensitivityMethod
    integrator: Integrator
    runs: int
    steps: int
    residual_evaluations: int
    sensitivity_residual_evaluations: int
    jacobian_evaluations: int
    quadrature_evaluations: int
    error_test_failures: int
    convergence_failures: int
    max_constraint_residual: float
    max_velocity_constraint_residual: float
    wall_seconds: float
    ok: bool
    def brief_report(self) -> str: ...
    def __bool__(self) -> bool: ...

class SensitivityResult:
    summary: SensitivitySummary
    parameter_names: List[str]
    column_names: List[str]       # the parameters, then the initial-state directions
    parameters: Array             # (np,)
    initial_directions: Array     # (2 nq, directions)
    times: Array                  # (T,)
    states: Array                 # (T, n_y), y = (q, v, lam)
    sensitivities: Array          # (T, n_y, columns)
    cost: float
    cost_gradient: Array          # (columns,)
    cost_derivatives: dict
    nq: int
    nc: int
    observed_multiplier: ObservedMultiplier
    exception: Optional[BaseException]
    def cost_derivative(self, name: str) -> float: ...

def compute_sensitivities(system: ParametricSystem, initial: State, options: SimulationOptions = ...,
                          sensitivity_options: SensitivityOptions = ...) -> SensitivityResult: ...

# --- contact (docs/contact.md) ----------------------------------------------------------------
class UnilateralConstraints:
    def ng(self) -> int: ...
    def gap_name(self, k: int) -> str: ...
    def restitution(self, k: int) -> float: ...
    def gap(self, q: ArrayLike, t: float = 0.0) -> Array: ...

class JointLimit:
    name: str
    bound: float
    upper: bool
    restitution: float
    @staticmethod
    def lower(name: str, i: int, a: float, e: float) -> JointLimit: ...
    @staticmethod
    def upper_bound(name: str, i: int, b: float, e: float) -> JointLimit: ...

class JointLimits(UnilateralConstraints):
    def __init__(self, nq: int, limits: List[JointLimit]) -> None: ...

class ContactRunOptions:
    integrator: _Field[Integrator, Union[Integrator, str]]
    dt: float
    end_time: float
    time_tolerance: float
    gap_tolerance: float
    velocity_tolerance: float
    zeno_horizon: float
    max_impacts: int
    def __init__(self, *, integrator: Union[Integrator, str] = ...,
                 dt: float = ...,
                 end_time: float = ...,
                 time_tolerance: float = ...,
                 gap_tolerance: float = ...,
                 velocity_tolerance: float = ...,
                 zeno_horizon: float = ...,
                 max_impacts: int = ...) -> None: ...
    def validate(self) -> None: ...

class ImpactRecord:
    t: float
    contact: int
    name: str
    v_minus: float
    v_plus: float
    impulse: float
    kinetic_energy_loss: float
    restitution: float
    effective_mass: float
    closed_form_loss: float

class ContactTransition:
    t: float
    contact: int
    name: str
    kind: str  # "persistent" or "lift_off"

class ContactSummary:
    status: RunStatus
    message: str
    steps: int
    acceleration_solves: int
    lcp_solves: int
    root_searches: int
    root_trials: int
    impacts: List[ImpactRecord]
    transitions: List[ContactTransition]
    zeno_time: Optional[float]
    zeno_contact: int
    max_complementarity_residual: float
    max_phi_inf: float
    t_final: float
    wall_seconds: float
    @property
    def ok(self) -> bool: ...
    def brief_report(self) -> str: ...

class ContactRunResult:
    summary: ContactSummary
    t: Array         # (n,)
    q: Array         # (n, nq)
    v: Array         # (n, nq)
    lambda_N: Array  # (n, ng)

class ContactProblem:
    name: str
    initial: State
    @property
    def gaps(self) -> UnilateralConstraints: ...
    @property
    def nq(self) -> int: ...

def contact_problem(name: str) -> ContactProblem: ...
@overload
def simulate_contact(problem: ContactProblem, options: ContactRunOptions = ...) -> ContactRunResult: ...
@overload
def simulate_contact(system: ConstrainedSystem, gaps: UnilateralConstraints, initial: State,
                     options: ContactRunOptions = ...) -> ContactRunResult: ...

class Simulator:
    """A run taken one step at a time, any integrator; events located, states recorded on request."""
    def __init__(self, system: ConstrainedSystem, state: State, options: SimulationOptions = ...,
                 controller: Optional[Callable[[float, Array, Array], ArrayLike]] = None,
                 record: bool = False) -> None: ...
    def step(self) -> RunStatus: ...
    def advance_to(self, t: float) -> RunStatus: ...
    def reset(self, state: State) -> None: ...
    def get_state(self) -> State: ...
    def set_state(self, state: State) -> None: ...
    def copy(self) -> Simulator: ...
    def __copy__(self) -> Simulator: ...
    def __deepcopy__(self, memo: object) -> Simulator: ...
    @property
    def state(self) -> State: ...
    @property
    def t(self) -> float: ...
    @property
    def q(self) -> Array: ...
    @property
    def v(self) -> Array: ...
    @property
    def lam(self) -> Array: ...
    @property
    def steps(self) -> int: ...
    @property
    def status(self) -> RunStatus: ...
    @property
    def message(self) -> str: ...
    @property
    def options(self) -> SimulationOptions: ...
    @property
    def system(self) -> ConstrainedSystem: ...
    @property
    def events(self) -> List[FiredEvent]: ...
    @property
    def recording(self) -> Optional[Recording]: ...
    @property
    def records(self) -> bool: ...
    @property
    def summary(self) -> Summary: ...

# --- experiments ------------------------------------------------------------------------------
class ChainMode:
    name: str
    stabilization: Stabilization
    def __init__(self, name: str, stabilization: Stabilization) -> None: ...

class ChainRunMetrics:
    max_violation: float
    final_violation: float
    energy_rel_max: float
    tip_final: Array
    samples: int

class ChainTrace:
    t: Array
    violation: Array
    energy: Array
    tip_x: Array
    tip_y: Array
    def __len__(self) -> int: ...

class ChainModeResult:
    name: str
    stabilization: Stabilization
    summary: Summary
    metrics: ChainRunMetrics
    trace: ChainTrace
    diverged: bool

def run_chain_comparison(chain: PendulumChain, initial: State, modes: Sequence[ChainMode],
                         options: SimulationOptions, record_trace: bool = False) -> List[ChainModeResult]: ...

class MotionTimeScale:
    motion_rate: float
    mean_step: float
    summary: Summary

def measure_motion_time_scale(system: ConstrainedSystem, start: State, t_end: float,
                              integrator: Union[Integrator, str], tolerance: float,
                              outputs: int = 200) -> MotionTimeScale: ...

IDA_INDEX1_OMEGA_STEP: float
ADAPTIVE_GAIN_TOP_WIDTH: float

class AdaptiveGainOptions:
    integrators: List[Integrator]
    tolerances: List[float]
    omegas: List[float]
    extend_max_omega: float
    extend_work_factor: float
    ensemble_size: int
    ensemble_step: float
    zeta: float
    max_steps: int
    smoothing_half_width: int
    band_tolerance: float
    kkt: KktOptions
    threads: int
    def __init__(self, *, integrators: List[Integrator] = ...,
                 tolerances: List[float] = ...,
                 omegas: List[float] = ...,
                 extend_max_omega: float = ...,
                 extend_work_factor: float = ...,
                 ensemble_size: int = ...,
                 ensemble_step: float = ...,
                 zeta: float = ...,
                 max_steps: int = ...,
                 smoothing_half_width: int = ...,
                 band_tolerance: float = ...,
                 kkt: KktOptions = ...,
                 threads: int = ...) -> None: ...
    def validate(self) -> None: ...

class AdaptiveGainRun:
    integrator: Integrator
    tolerance: float
    omega: float
    summary: Summary
    reached_end: bool
    scd: float
    end_scd: float
    work: int
    efficiency: float
    member_efficiency: List[float]
    efficiency_spread: float
    member_work: List[int]

class AdaptiveGainBest:
    integrator: Integrator
    tolerance: float
    best_omega: float
    best: AdaptiveGainRun
    unstabilized: AdaptiveGainRun
    unstabilized_mean_step: float
    smoothed_best_omega: float
    smoothed_best_efficiency: float
    smoothed_efficiency: List[float]
    smoothed_error: List[float]
    band_low: float
    band_high: float
    omegas: List[float]
    first_run: int
    scatter: float
    ensemble_spread: float

class AdaptiveGainScan:
    runs: List[AdaptiveGainRun]
    best: List[AdaptiveGainBest]

class AdaptiveGainPlacement:
    ratio: float
    outside_factor: float
    side: int
    loss: float
    loss_error: float

def place_in_band(best: AdaptiveGainBest, omega: float) -> AdaptiveGainPlacement: ...
def adaptive_gain_reference_path(system: ConstrainedSystem, start: State, t_end: float, outputs: int,
                                 components: int = 0, rtol: float = 1e-12) -> np.ndarray: ...
def test_set_case(name: str) -> dict: ...
def significant_correct_digits(y: ArrayLike, reference: ArrayLike) -> float: ...
def mixed_error_significant_digits(y: ArrayLike, reference: ArrayLike, rtol: float, atol: float) -> float: ...
def path_digits(path: ArrayLike, reference: ArrayLike) -> float: ...
def scan_adaptive_gains(system: ConstrainedSystem, start: State, t_end: float, reference_path: ArrayLike,
                        options: AdaptiveGainOptions, name: str = "") -> AdaptiveGainScan: ...

class AdaptiveGainMode(_Enum):
    RULE: AdaptiveGainMode
    SCAN: AdaptiveGainMode
    label: str
    def __init__(self, label: str) -> None: ...

class AdaptiveGainTunerOptions:
    per_decade: int
    grid_offset: float
    low_factor: float
    high_factor: float
    extend_factor: float
    extend_work_factor: float
    ensemble_size: int
    ensemble_step: float
    smoothing_half_width: int
    band_tolerance: float
    outputs: int
    reference_tolerance: float
    scored_components: int
    max_steps_factor: int
    refine_per_decade: int
    refine_ensemble_size: int
    refine_smoothing_half_width: int
    refine_candidate_tolerance: float
    refine_margin: float
    threads: int
    def __init__(self, *, per_decade: int = ...,
                 grid_offset: float = ...,
                 low_factor: float = ...,
                 high_factor: float = ...,
                 extend_factor: float = ...,
                 extend_work_factor: float = ...,
                 ensemble_size: int = ...,
                 ensemble_step: float = ...,
                 smoothing_half_width: int = ...,
                 band_tolerance: float = ...,
                 outputs: int = ...,
                 reference_tolerance: float = ...,
                 scored_components: int = ...,
                 max_steps_factor: int = ...,
                 refine_per_decade: int = ...,
                 refine_ensemble_size: int = ...,
                 refine_smoothing_half_width: int = ...,
                 refine_candidate_tolerance: float = ...,
                 refine_margin: float = ...,
                 threads: int = ...) -> None: ...
    def validate(self) -> None: ...

class AdaptiveGainTuning:
    used: bool
    message: str
    omega: float
    rule_omega: float
    reference_tolerance: float
    best: AdaptiveGainBest
    scan_runs: List[AdaptiveGainRun]
    refined: bool
    coarse: AdaptiveGainBest
    coarse_runs: List[AdaptiveGainRun]
    grid_points: int
    runs: int
    model_calls: int
    reference_model_calls: int

class ModelGuidanceOptions:
    guidance: BaumgarteGuidanceOptions
    horizon: float
    tolerance: float
    measure_limit: bool
    min_steps: int
    offset: float
    adaptive_mode: _Field[AdaptiveGainMode, Union[AdaptiveGainMode, str]]
    tuner: AdaptiveGainTunerOptions
    def __init__(self, *, guidance: BaumgarteGuidanceOptions = ...,
                 horizon: float = ...,
                 tolerance: float = ...,
                 measure_limit: bool = ...,
                 min_steps: int = ...,
                 offset: float = ...,
                 adaptive_mode: Union[AdaptiveGainMode, str] = ...,
                 tuner: AdaptiveGainTunerOptions = ...) -> None: ...
    def validate(self) -> None: ...

class ModelGuidance:
    recommendation: BaumgarteRecommendation
    time_scale: MotionTimeScale
    limit_found: bool
    measured_limit: float
    tuning: AdaptiveGainTuning

def recommend_baumgarte_for_model(system: ConstrainedSystem, start: State, integrator: Union[Integrator, str],
                                  dt: float, options: ModelGuidanceOptions = ...) -> ModelGuidance: ...
def adaptive_gain_tuner_grid(motion_rate: float, mean_step: float,
                             options: AdaptiveGainTunerOptions = ...) -> List[float]: ...
def adaptive_gain_refine_grid(coarse: AdaptiveGainBest, options: AdaptiveGainTunerOptions = ...) -> List[float]: ...
