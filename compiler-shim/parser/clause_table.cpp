// Which clauses each directive takes, and in what form (directive_parser.hpp).
#include "directive_parser.hpp"

namespace joulecc {
namespace {

constexpr ClauseSpec kClauses[] = {
    {"if", "if", ArgForm::Expr1, kTaskLike, false, true},
    {"final", "final", ArgForm::Expr1, kTaskLike, false, true},
    {"priority", "priority", ArgForm::Expr1, kTaskLike, false, true},
    {"label", "label", ArgForm::Expr1, kTaskLike, false, true},
    {"cost", "cost", ArgForm::Expr1, kTaskLike, false, true},
    {"default", "default", ArgForm::Default, kTaskLike, false, true},
    {"private", "private", ArgForm::Names, kTaskLike, false, false},
    {"firstprivate", "firstprivate", ArgForm::Names, kTaskLike, false, false},
    {"shared", "shared", ArgForm::Names, kTaskLike, false, false},
    {"in", "in", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"out", "out", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"inout", "inout", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"input", "in", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"output", "out", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"on", "inout", ArgForm::Regions, kWait, false, false},
    {"concurrent", "concurrent", ArgForm::Regions, kTaskLike, false, false},
    {"commutative", "commutative", ArgForm::Regions, kTaskLike, false, false},
    {"weakin", "in", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakout", "out", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakinout", "inout", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakconcurrent", "concurrent", ArgForm::Regions, kTaskLike, true, false},
    {"weakcommutative", "commutative", ArgForm::Regions, kTaskLike, true, false},
    {"reduction", "reduction", ArgForm::Reduction, kTaskLike, false, false},
    {"weakreduction", "reduction", ArgForm::Reduction, kTaskLike, true, false},
    {"in_reduction", "reduction", ArgForm::Reduction, kTask, false, false},
    {"depend", "depend", ArgForm::Depend, kTaskLike | kWait | kRelease, false, false},
    {"device", "device", ArgForm::Device, kTaskLike | kTarget, false, true},
    {"copy_in", "copy_in", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_out", "copy_out", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_inout", "copy_inout", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_deps", "copy_deps", ArgForm::None, kTaskLike | kTarget, false, true},
    {"no_copy_deps", "no_copy_deps", ArgForm::None, kTaskLike | kTarget, false, true},
    {"implements", "implements", ArgForm::Expr1, kTaskLike | kTarget, false, true},
    {"untied", "untied", ArgForm::None, kTaskLike, false, true},
    {"tied", "tied", ArgForm::None, kTaskLike, false, true},
    {"mergeable", "mergeable", ArgForm::None, kTaskLike, false, true},
    {"wait", "wait", ArgForm::None, kTaskLike, false, true},
    {"grainsize", "grainsize", ArgForm::Expr1, kLoop, false, true},
    {"num_tasks", "num_tasks", ArgForm::Expr1, kLoop, false, true},
    {"collapse", "collapse", ArgForm::Expr1, kLoop, false, true},
    {"chunksize", "chunksize", ArgForm::Expr1, kLoop, false, true},
    {"nogroup", "nogroup", ArgForm::None, kLoop, false, true},
    {"noflush", "noflush", ArgForm::None, kWait, false, true},
    {"hint", "hint", ArgForm::Expr1, kCritical, false, true},
    // Accepted, no effect: a placement hint (OmpSs-2 spec, "affinity clause")
    // and the FPGA accelerator count of device(fpga) tasks, which run on the host.
    {"affinity", "affinity", ArgForm::Regions, kTaskLike, false, false},
    {"num_instances", "num_instances", ArgForm::Expr1, kTaskLike | kTarget, false, true},
    // device(cuda) task functions: ndrange(n, G1..Gn, L1..Ln) launches the
    // function as a kernel (OmpSs-2 user guide, "CUDA tasks").
    {"ndrange", "ndrange", ArgForm::Ndrange, kTask | kTarget, false, true},
};

}  // namespace

const ClauseSpec* find_spec(const std::string& name) {
  for (const ClauseSpec& s : kClauses)
    if (name == s.name) return &s;
  return nullptr;
}

unsigned dir_mask(DirKind k) {
  switch (k) {
    case DirKind::Task:
      return kTask;
    case DirKind::Taskloop:
      return kLoop;
    case DirKind::Taskwait:
      return kWait;
    case DirKind::Release:
      return kRelease;
    case DirKind::Target:
      return kTarget;
    case DirKind::Critical:
      return kCritical;
    default:
      return 0;
  }
}

// Clauses that mean "this is an OmpSs-1 target", not an OpenMP offload target.
bool ompss_target_clause(const std::string& n) {
  static const std::set<std::string> k = {"device",     "copy_in",   "copy_out",
                                          "copy_inout", "copy_deps", "no_copy_deps",
                                          "implements", "ndrange",   "num_instances"};
  return k.count(n) != 0;
}

}  // namespace joulecc
