#include "lib/model/selector.h"

#include <algorithm>

namespace pg::model {

namespace {

bool setError(LabelSelector::Error* error, yaml::NodeRef at, std::string message) {
  if (error) *error = {at, std::move(message)};
  return false;
}

bool parseExpression(yaml::NodeRef expr, LabelRequirement& out, LabelSelector::Error* error) {
  if (!expr.isMapping()) return setError(error, expr, "a matchExpressions item must be a mapping");
  yaml::NodeRef key = expr.get("key");
  if (!key.isScalar() || key.str().empty())
    return setError(error, key ? key : expr, "matchExpressions item needs a non-empty key");
  out.key = std::string(key.str());
  yaml::NodeRef op = expr.get("operator");
  std::string_view name = op.str();
  using Op = LabelRequirement::Operator;
  if (name == "In")
    out.op = Op::In;
  else if (name == "NotIn")
    out.op = Op::NotIn;
  else if (name == "Exists")
    out.op = Op::Exists;
  else if (name == "DoesNotExist")
    out.op = Op::DoesNotExist;
  else
    return setError(error, op ? op : expr,
                    "operator must be one of In, NotIn, Exists, DoesNotExist");
  yaml::NodeRef values = expr.get("values");
  for (yaml::NodeRef v : values.items()) out.values.emplace_back(v.str());
  bool needsValues = out.op == Op::In || out.op == Op::NotIn;
  if (needsValues && out.values.empty())
    return setError(error, values ? values : expr,
                    "operator " + std::string(name) + " needs a non-empty values list");
  if (!needsValues && !out.values.empty())
    return setError(error, values, "operator " + std::string(name) + " takes no values");
  return true;
}

}  // namespace

std::optional<LabelSelector> LabelSelector::parse(yaml::NodeRef node, Error* error) {
  LabelSelector selector;
  if (!node || node.isNull()) return selector;
  if (!node.isMapping()) {
    setError(error, node, "a label selector must be a mapping");
    return std::nullopt;
  }
  for (auto [k, v] : node.get("matchLabels").entries())
    selector.requirements_.push_back(
        {std::string(k.str()), LabelRequirement::Operator::In, {std::string(v.str())}});
  yaml::NodeRef expressions = node.get("matchExpressions");
  if (expressions && !expressions.isNull() && !expressions.isSequence()) {
    setError(error, expressions, "matchExpressions must be a list");
    return std::nullopt;
  }
  for (yaml::NodeRef expr : expressions.items()) {
    LabelRequirement req;
    if (!parseExpression(expr, req, error)) return std::nullopt;
    selector.requirements_.push_back(std::move(req));
  }
  return selector;
}

LabelSelector LabelSelector::fromMatchLabels(yaml::NodeRef labels) {
  LabelSelector selector;
  for (auto [k, v] : labels.entries())
    selector.requirements_.push_back(
        {std::string(k.str()), LabelRequirement::Operator::In, {std::string(v.str())}});
  return selector;
}

std::string LabelSelector::str() const {
  using Op = LabelRequirement::Operator;
  std::string out;
  for (const LabelRequirement& req : requirements_) {
    if (!out.empty()) out += ',';
    if (req.op == Op::In && req.values.size() == 1) {
      out += req.key + "=" + req.values.front();
      continue;
    }
    if (req.op == Op::Exists || req.op == Op::DoesNotExist) {
      out += (req.op == Op::DoesNotExist ? "!" : "") + req.key;
      continue;
    }
    out += req.key + (req.op == Op::In ? " in (" : " notin (");
    for (std::size_t i = 0; i < req.values.size(); ++i)
      out += (i ? "," : "") + req.values[i];
    out += ')';
  }
  return out.empty() ? std::string("everything") : out;
}

bool LabelSelector::matches(yaml::NodeRef labels) const {
  return matches(labels, {}, {});
}

bool LabelSelector::matches(yaml::NodeRef labels, std::string_view implicitKey,
                            std::string_view implicitValue) const {
  using Op = LabelRequirement::Operator;
  for (const LabelRequirement& req : requirements_) {
    yaml::NodeRef node = labels.get(req.key);
    bool has = static_cast<bool>(node);
    std::string_view value = node.str();
    if (!has && !implicitKey.empty() && req.key == implicitKey) {
      has = true;
      value = implicitValue;
    }
    bool inValues =
        has && std::find(req.values.begin(), req.values.end(), value) != req.values.end();
    switch (req.op) {
      case Op::In:
        if (!inValues) return false;
        break;
      case Op::NotIn:
        if (inValues) return false;
        break;
      case Op::Exists:
        if (!has) return false;
        break;
      case Op::DoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace pg::model
