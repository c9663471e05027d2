// device(cuda) task functions (docs/offload-cuda.md, "joulecc: device(cuda) and
// ndrange"). The wrapper packs the arguments and describes them as a
// device(mic) wrapper does (codegen_card.cpp) and hands both to
// joule_oss_cuda_task, which makes a CUDA task: on a host worker it replaces
// every pointer argument by the GPU's copy of what it points at, then runs the
// call function below with the task's stream. With ndrange the call function
// launches the task function, a __global__ kernel defined in a .cu file,
// through cudaLaunchKernel with its host stub's address (CUDA runtime API,
// "Execution Control"); without ndrange it calls the function, which
// launches its kernels on joule_cuda_current_stream() itself.
#include "codegen.hpp"

namespace joulecc {

// The call function's body after __ja: the launch (grid and block come from
// joule_oss_cuda_task, which divides the ndrange sizes) or the plain call.
// Returns null or the CUDA runtime's error string (a C frame cannot throw).
std::string Generator::cuda_launch(const FunctionTask& f, const Construct& t,
                                   const std::string& args) const {
  if (!t.dir.find("ndrange")) return "(void)__jl;\n" + f.name + "(" + args + ");\nreturn 0;\n";
  std::string ptrs;
  for (std::size_t i = 0; i < f.param_names.size(); ++i)
    ptrs += (i ? ", " : "") + std::string("&__ja->") + f.param_names[i];
  if (ptrs.empty()) ptrs = "0";
  const bool cxx = m_.lang == Lang::Cxx;
  const std::string fn =
      cxx ? "reinterpret_cast<const void *>(&" + f.name + ")" : "(const void *)" + f.name;
  return "void *__jk[] = {" + ptrs +
         "};\n"
         "dim3 __jgd = {__jl->grid[0], __jl->grid[1], __jl->grid[2]};\n"
         "dim3 __jbd = {__jl->block[0], __jl->block[1], __jl->block[2]};\n"
         "cudaError_t __jerr = cudaLaunchKernel(" +
         fn +
         ", __jgd, __jbd, __jk, 0, __jl->stream);\n"
         "return __jerr == cudaSuccess ? 0 : cudaGetErrorString(__jerr);\n";
}

// joule_oss_cuda_task(...), with ndrange's values (dimensions, global sizes,
// block sizes) evaluated here, where the parameters they name are in scope.
std::string Generator::cuda_submit(const FunctionTask& f, const Construct& t,
                                   const std::string& call, const std::string& table) {
  std::string nd = "0";
  std::string out;
  if (const Clause* r = t.dir.find("ndrange")) {
    std::string vals;
    for (std::size_t i = 0; i < r->args.size(); ++i)
      vals += (i ? ", " : "") + std::string("(long long)(") + r->args[i].text + ")";
    out = "const long long __jnd[] = {" + vals + "};\n";
    nd = "__jnd";
  }
  return out + "joule_oss_cuda_task(" + call + ", " + table + ", " +
         std::to_string(f.param_names.size()) + ", &__jarg, sizeof __jarg, &__jo, &__jd, " +
         (copies_deps(t) ? "1" : "0") + ", &__jc, \"" + f.name + "\", " + nd + ");\n";
}

std::string Generator::cuda_function_c(const FunctionTask& f, const Construct& t,
                                       const std::string& head) {
  const std::string id = std::to_string(f.id), call = "__joule_fcall_" + id;
  const ArgBlock b = arg_block_c(f, "struct __joule_fargs_" + id);
  return offload_function_c(
      f, t, head, b, "const char *" + call + "(void *__jv, const joule_oss_cuda_launch_t *__jl)",
      cuda_launch(f, t, b.args), cuda_submit(f, t, call, "__joule_fctab_" + id));
}

std::string Generator::cuda_function_cxx(const FunctionTask& f, const Construct& t,
                                         const std::string& head) {
  const ArgBlock b = arg_block_cxx(f, "cuda");
  const std::string call =
      "[](void *__jv, const joule_oss_cuda_launch_t *__jl) -> const char * {\n"
      "__joule_fargs *__ja = static_cast<__joule_fargs *>(__jv);\n(void)__ja;\n" +
      cuda_launch(f, t, b.args) + "}";
  return offload_function_cxx(f, t, head, b, cuda_submit(f, t, call, "__jtab"));
}

}  // namespace joulecc
