#pragma once
/// @file
/// Some of a model's parameters: the same model, differentiated with respect to fewer columns.
/// Every sensitivity column costs a linear system per step (and two runs by central
/// differences), so a chain that declares its masses, gravity and lengths is cheaper asked for
/// just the lengths. SensitivityOptions::parameters does this by name; this class is what it uses.

#include <memory>
#include <string>
#include <vector>

#include "kktdae/sensitivity/parametric_system.hpp"

namespace kktdae {

/// A view of `model` whose parameters are the named subset of model's, in the order given. The
/// terms (M, h, φ and their sparse and structural declarations) are model's, forwarded; the
/// parameter derivatives are model's columns for the chosen parameters. `model` must outlive
/// the selection (withParameterValues() returns a selection that owns its shifted model).
class ParameterSelection final : public ParametricSystem {
 public:
  /// Throws std::invalid_argument for an empty list, a repeated name, or a name the model does
  /// not declare (the message lists the names it does).
  ParameterSelection(const ParametricSystem& model, const std::vector<std::string>& names);

  const ParametricSystem& model() const { return *model_; }  ///< the model it selects from
  /// model's index of each selected parameter, in the selection's order.
  const std::vector<int>& modelIndices() const { return indices_; }

  // The model's terms, forwarded.
  std::string name() const override { return model_->name(); }
  int nq() const override { return model_->nq(); }
  int nc() const override { return model_->nc(); }
  int nu() const override { return model_->nu(); }
  MassStructure massStructure() const override { return model_->massStructure(); }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { model_->massMatrix(q, M); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { model_->massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { model_->bias(q, v, t, h); }
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override { model_->inputMap(q, t, S); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { model_->constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    model_->constraintJacobian(q, t, J);
  }
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override {
    model_->constraintTimeDerivative(q, t, phi_t);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    model_->constraintBias(q, v, t, gamma);
  }
  void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override {
    model_->evaluateTerms(q, v, t, out);
  }
  int jacobianNonZeros() const override { return model_->jacobianNonZeros(); }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    model_->constraintJacobianPattern(rows, cols);
  }
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override {
    model_->constraintJacobianValues(q, t, values);
  }
  bool biasDependsOnState() const override { return model_->biasDependsOnState(); }
  int biasJacobianBandwidth() const override { return model_->biasJacobianBandwidth(); }
  bool isTimeDependent() const override { return model_->isTimeDependent(); }
  bool isConservative() const override { return model_->isConservative(); }
  double energyScale() const override { return model_->energyScale(); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return model_->kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return model_->potentialEnergy(q, t); }
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override {
    model_->termsTangent(q, v, t, dq, dv, out);
  }

  // The chosen parameters.
  int np() const override { return static_cast<int>(indices_.size()); }
  /// Throws std::invalid_argument for i outside [0, np).
  std::string parameterName(int i) const override;
  Vector parameterValues() const override;
  /// The model at the chosen parameters' new values (the others as they are), selected alike.
  /// Throws std::invalid_argument for a size other than np, or what the model throws.
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const override;
  /// The model's D, its chosen columns (the model's whole D is computed into a matrix allocated
  /// per call: the selection stays safe to share between threads). Sizes: q, v, a nq; D nq×np.
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override;
  /// The model's: a selection of parameters outside φ still says true when the model does (its
  /// columns of ∂φ/∂p are then zero; the only cost is that of evaluating them).
  bool constraintsDependOnParameters() const override { return model_->constraintsDependOnParameters(); }
  /// The model's ∂φ/∂p, its chosen columns (allocates as D does). Sizes: q nq; P nc×np.
  void constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const override;
  /// The model's, for its index of `parameter`.
  void constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                  ConstraintParameterTangent& out) const override;

 private:
  ParameterSelection(std::shared_ptr<const ParametricSystem> owned, std::vector<int> indices);
  std::shared_ptr<const ParametricSystem> owned_;  ///< the shifted model withParameterValues() made; else null
  const ParametricSystem* model_;
  std::vector<int> indices_;
};

}  // namespace kktdae
