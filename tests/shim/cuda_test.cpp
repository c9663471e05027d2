// device(cuda) task functions through joulecc's driver (programs/cuda/): a C
// and a C++ program with their kernels in a .cu file, compiled by nvcc
// through joulecc and linked with the CUDA runtime. Here (no GPU, no driver)
// each run must stop at the first CUDA task with joule's "no CUDA device"
// message and status 1; CudaGpu (ctest shim_cuda_gpu, label cuda) runs them
// on a GPU and checks their results, and skips without one.
#include <gtest/gtest.h>

#include "shim_support.hpp"

namespace {

const std::string kDir = std::string(SHIM_DIR) + "/programs/cuda";
const std::string kJoulecc = JOULECC_PATH;

// Builds prog_c and prog_cxx once, in one directory, for every test.
class Cuda : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new shim::TempDir;
    const std::string cd = "cd " + shim::quote(tmp_->path()) + " && ";
    const std::string k = shim::quote(kDir + "/kernels.cu");
    build_c_ = shim::run(cd + kJoulecc + " gcc -O2 -Wall -DKERNELS_FOR_C -I" + shim::quote(kDir) +
                         " " + shim::quote(kDir + "/cuda_tasks.c") + " " + k + " -o prog_c");
    build_cxx_ = shim::run(cd + kJoulecc + " g++ -O2 -Wall -std=c++17 -I" + shim::quote(kDir) +
                           " " + shim::quote(kDir + "/cuda_tasks.cpp") + " " + k + " -o prog_cxx");
  }
  static void TearDownTestSuite() { delete tmp_; }
  static std::string prog(const char* name) { return tmp_->path() + "/" + name; }

  static shim::TempDir* tmp_;
  static shim::Result build_c_, build_cxx_;
};
shim::TempDir* Cuda::tmp_ = nullptr;
shim::Result Cuda::build_c_, Cuda::build_cxx_;

bool no_gpu(const shim::Result& r) {
  return r.output.find("no CUDA device: ") != std::string::npos;
}

TEST_F(Cuda, CAndCxxProgramsBuild) {
  EXPECT_EQ(build_c_.status, 0) << build_c_.output;
  EXPECT_EQ(build_cxx_.status, 0) << build_cxx_.output;
}

TEST_F(Cuda, WithoutAGpuTheFirstCudaTaskStopsTheProgram) {
  ASSERT_EQ(build_c_.status, 0) << build_c_.output;
  ASSERT_EQ(build_cxx_.status, 0) << build_cxx_.output;
  for (const char* p : {"prog_c", "prog_cxx"})
    for (int workers : {1, 8}) {
      shim::Result r = shim::run("JOULE_WORKERS=" + std::to_string(workers) + " " +
                                 shim::quote(prog(p)) + " 2>&1");
      if (!no_gpu(r) && r.status == 0) GTEST_SKIP() << "a GPU is present (CudaGpu runs them)";
      EXPECT_EQ(r.status, 1) << p << ":\n" << r.output;
      EXPECT_NE(r.output.find("joule: device(cuda) task 'saxpy': no CUDA device: "),
                std::string::npos)
          << p << ":\n"
          << r.output;
      EXPECT_EQ(r.output.find("OK"), std::string::npos) << r.output;
    }
}

// The GPU run: every result right at 1, 2, 4 and 8 workers.
TEST_F(Cuda, GpuRunsTheKernels) {
  ASSERT_EQ(build_c_.status, 0) << build_c_.output;
  ASSERT_EQ(build_cxx_.status, 0) << build_cxx_.output;
  for (const char* p : {"prog_c", "prog_cxx"})
    for (int workers : {1, 2, 4, 8}) {
      shim::Result r = shim::run("JOULE_WORKERS=" + std::to_string(workers) + " " +
                                 shim::quote(prog(p)) + " 2>&1");
      if (no_gpu(r)) GTEST_SKIP() << "no CUDA device: " << r.output;
      EXPECT_EQ(r.status, 0) << p << " on " << workers << " workers:\n" << r.output;
      EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
    }
}

// A bad ndrange value stops the program at the call, GPU or not, naming it.
TEST(CudaDriver, BadNdrangeStopsTheProgramAtTheCall) {
  shim::TempDir tmp;
  shim::write_file(tmp.path() + "/bad.c",
                   "#include \"kernels.h\"\n"
                   "int main(void) {\n"
                   "  float x[1], y[1];\n"
                   "  saxpy(0, 1.0f, x, y);\n"
                   "#pragma oss taskwait\n"
                   "  return 0;\n"
                   "}\n");
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result b = shim::run(cd + kJoulecc + " gcc -DKERNELS_FOR_C -I" + shim::quote(kDir) +
                             " bad.c " + shim::quote(kDir + "/kernels.cu") + " -o bad");
  ASSERT_EQ(b.status, 0) << b.output;
  shim::Result r = shim::run(cd + "./bad 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("joule: device(cuda) task 'saxpy': ndrange: dimension 1 has global size "
                          "0 and block size 128 (both must be at least 1"),
            std::string::npos)
      << r.output;
}

// Separate compiles: joulecc -c on the C source and on the .cu file (nvcc
// writes the object), then a link of objects only, which --cuda tells to
// link the CUDA runtime (without it the link misses cudaLaunchKernel), with
// gcc, which also needs the C++ runtime for nvcc's objects.
TEST(CudaDriver, SeparateCompileAndLinkWithCudaFlag) {
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && " + kJoulecc + " gcc ";
  shim::Result c = shim::run(cd + "-DKERNELS_FOR_C -I" + shim::quote(kDir) + " -c " +
                             shim::quote(kDir + "/cuda_tasks.c") + " -o main.o");
  ASSERT_EQ(c.status, 0) << c.output;
  shim::Result k =
      shim::run(cd + "-DKERNELS_FOR_C -c " + shim::quote(kDir + "/kernels.cu") + " -o k.o");
  ASSERT_EQ(k.status, 0) << k.output;
  EXPECT_TRUE(shim::file_exists(tmp.path() + "/k.o"));
  // g++: the C++ runtime is there, only CUDA's is missing.
  shim::Result bare =
      shim::run("cd " + shim::quote(tmp.path()) + " && " + kJoulecc + " g++ main.o k.o -o prog");
  EXPECT_NE(bare.status, 0) << "linked without the CUDA runtime?\n" << bare.output;
  EXPECT_NE(bare.output.find("cudaLaunchKernel"), std::string::npos) << bare.output;
  shim::Result l = shim::run("cd " + shim::quote(tmp.path()) + " && " + kJoulecc +
                             " --cuda gcc main.o k.o -o prog");
  EXPECT_EQ(l.status, 0) << l.output;
  EXPECT_TRUE(shim::file_exists(tmp.path() + "/prog"));
}

TEST(CudaDriver, NoToolkitIsAClearError) {
  shim::TempDir tmp;
  shim::Result r =
      shim::run("cd " + shim::quote(tmp.path()) + " && PATH=/usr/bin:/bin CUDA_HOME=/nonexistent " +
                kJoulecc + " gcc -DKERNELS_FOR_C -I" + shim::quote(kDir) + " " +
                shim::quote(kDir + "/cuda_tasks.c") + " -o prog");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cuda_tasks.c: device(cuda) task functions need the CUDA toolkit: "
                          "CUDA_HOME=/nonexistent is not a CUDA toolkit"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/prog"));
}

// A wrapper script named nvcc first on PATH, outside any toolkit (as some
// machines put one in /usr/local/bin): joulecc asks it, by a dry run, where
// its toolkit is and compiles with it, and with no other toolkit in sight.
TEST(CudaDriver, AnNvccWrapperOnPathFindsItsToolkit) {
  shim::TempDir tmp;
  shim::write_file(tmp.path() + "/nvcc", "#!/bin/sh\nexec " + shim::quote(SHIM_NVCC) + " \"$@\"\n");
  ASSERT_EQ(shim::run("chmod +x " + shim::quote(tmp.path() + "/nvcc")).status, 0);
  const std::string env = "cd " + shim::quote(tmp.path()) +
                          " && env -u CUDA_HOME -u CUDA_PATH PATH=" + shim::quote(tmp.path()) +
                          ":/usr/bin:/bin ";
  shim::Result r = shim::run(env + kJoulecc + " --joule-verbose gcc -DKERNELS_FOR_C -I" +
                             shim::quote(kDir) + " " + shim::quote(kDir + "/cuda_tasks.c") + " " +
                             shim::quote(kDir + "/kernels.cu") + " -o prog 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(tmp.path() + "/nvcc -ccbin gcc"), std::string::npos) << r.output;
  EXPECT_TRUE(shim::file_exists(tmp.path() + "/prog"));
}

TEST(CudaDriver, OmpssPragmasInACuFileAreErrors) {
  shim::TempDir tmp;
  shim::write_file(tmp.path() + "/bad.cu",
                   "__global__ void k(float *x) { x[0] = 1; }\n"
                   "void run(float *x) {\n"
                   "  #pragma oss task inout(x[0])\n"
                   "  k<<<1, 1>>>(x);\n"
                   "}\n");
  shim::Result r =
      shim::run("cd " + shim::quote(tmp.path()) + " && " + kJoulecc + " g++ -c bad.cu -o bad.o");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("bad.cu:3: error: joulecc does not translate OmpSs pragmas in .cu files"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/bad.o"));
}

}  // namespace
