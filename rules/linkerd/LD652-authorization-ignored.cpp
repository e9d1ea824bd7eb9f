#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  for (const policy::linkerd::Ignored& i : ctx.analysis().linkerd.ignored) {
    if (i.object->kind != "AuthorizationPolicy" && i.object->kind != "ServerAuthorization")
      continue;
    if (linkerdrules::refused(ctx.analysis(), *i.object)) continue;
    model::Finding& f =
        ctx.report(i.object->locate(i.at), i.object->display() + " " + i.message, i.object);
    f.discriminator = i.message;
    f.missing = i.missing;  // weighed by the engine: elsewhere, unless the input is its home
  }
}

}  // namespace

PG_RULE(LD652, "authorization-ignored", "linkerd", Warning,
        "A Linkerd authorization authorizes nothing: its target does not exist, or an "
        "authentication it requires does not resolve",
        "AuthorizationPolicy,ServerAuthorization", check)

}  // namespace pg::rules
