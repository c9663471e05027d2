// The C program, translated as C++ (lambdas instead of outlined functions).
#include "taskloop_collapse.c"
