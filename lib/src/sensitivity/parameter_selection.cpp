#include "kktdae/sensitivity/parameter_selection.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

/// model's index of each name; throws for an empty list, a repeat or an unknown name.
std::vector<int> selectedIndices(const ParametricSystem& model, const std::vector<std::string>& names) {
  if (names.empty()) {
    throw std::invalid_argument("a parameter selection of " + model.name() + " needs at least one name");
  }
  std::vector<int> indices;
  indices.reserve(names.size());
  for (const std::string& name : names) {
    const int index = model.parameterIndex(name);  // throws listing the declared names
    if (std::find(indices.begin(), indices.end(), index) != indices.end()) {
      throw std::invalid_argument("parameter '" + name + "' is selected twice for " + model.name());
    }
    indices.push_back(index);
  }
  return indices;
}

}  // namespace

ParameterSelection::ParameterSelection(const ParametricSystem& model, const std::vector<std::string>& names)
    : model_(&model), indices_(selectedIndices(model, names)) {}

ParameterSelection::ParameterSelection(std::shared_ptr<const ParametricSystem> owned, std::vector<int> indices)
    : owned_(std::move(owned)), model_(owned_.get()), indices_(std::move(indices)) {}

std::string ParameterSelection::parameterName(int i) const {
  if (i < 0 || i >= np()) {
    throw std::invalid_argument("parameter index " + std::to_string(i) + " is not in [0, " + std::to_string(np()) +
                                ") for the selection of " + model_->name());
  }
  return model_->parameterName(indices_[static_cast<std::size_t>(i)]);
}

Vector ParameterSelection::parameterValues() const {
  const Vector all = model_->parameterValues();
  Vector p(np());
  for (int i = 0; i < np(); ++i) p[i] = all[indices_[static_cast<std::size_t>(i)]];
  return p;
}

std::unique_ptr<ParametricSystem> ParameterSelection::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), np());
  Vector all = model_->parameterValues();
  for (int i = 0; i < np(); ++i) all[indices_[static_cast<std::size_t>(i)]] = p[i];
  std::shared_ptr<const ParametricSystem> shifted = model_->withParameterValues(all);
  return std::unique_ptr<ParametricSystem>(new ParameterSelection(std::move(shifted), indices_));
}

void ParameterSelection::dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                                   MatrixRef D) const {
  Matrix all(model_->nq(), model_->np());
  model_->dynamicsParameterJacobian(q, v, a, t, all);
  for (int i = 0; i < np(); ++i) D.col(i) = all.col(indices_[static_cast<std::size_t>(i)]);
}

void ParameterSelection::constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const {
  Matrix all(model_->nc(), model_->np());
  model_->constraintParameterJacobian(q, t, all);
  for (int i = 0; i < np(); ++i) P.col(i) = all.col(indices_[static_cast<std::size_t>(i)]);
}

void ParameterSelection::constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                                    ConstraintParameterTangent& out) const {
  if (parameter < 0 || parameter >= np()) parameterName(parameter);  // throws naming the index
  model_->constraintParameterTangent(q, v, t, indices_[static_cast<std::size_t>(parameter)], out);
}

}  // namespace kktdae
