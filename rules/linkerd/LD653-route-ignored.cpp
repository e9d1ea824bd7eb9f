#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  const policy::linkerd::LinkerdModel& model = ctx.analysis().linkerd;
  for (const policy::linkerd::Ignored& i : model.ignored) {
    if (!policy::linkerd::isServerRouteKind(i.object->group, i.object->kind) ||
        linkerdrules::refused(ctx.analysis(), *i.object))
      continue;
    ctx.report(i.object->locate(i.at), i.object->display() + " " + i.message, i.object)
        .discriminator = i.message;
  }
  for (const policy::linkerd::ServerParent& p : model.serverParents) {
    if (p.accepted.status == "True" || linkerdrules::refused(ctx.analysis(), *p.route)) continue;
    std::string fix = p.accepted.reason == "NoMatchingParent"
                          ? "fix the parentRef's name or namespace, or add the Server"
                          : "give this route its own Server, or use the stronger kind";
    model::Finding& f =
        ctx.report(p.route->locateField(p.parentRef, "name"),
                   p.route->display() + " is not accepted on Server " + p.namespace_ + "/" +
                       p.name + ": " + p.accepted.message + " (" + p.accepted.reason +
                       "), so Linkerd does not serve it there; " + fix,
                   p.route);
    f.discriminator = "Server " + p.namespace_ + "/" + p.name;
  }
}

}  // namespace

PG_RULE(LD653, "route-ignored", "linkerd", Warning,
        "Linkerd's inbound index does not serve a route on its Server: not accepted, a parentRef "
        "it ignores, or a filter it does not implement",
        "HTTPRoute,GRPCRoute,TLSRoute,TCPRoute", check)

}  // namespace pg::rules
