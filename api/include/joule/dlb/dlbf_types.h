! dlbf_types.h: DLB's Fortran constants of monitoring regions, under the
! name DLB's dlbf_talp.h includes (docs/dlb-api.md, "Fortran").
! DLB_GLOBAL_REGION is the null pointer; the _INT forms are the same
! handles as integers (DLB_LAST_OPEN_REGION_INT: the running region
! started last, for DLB_MonitoringRegionStop).

      character(len=*), parameter :: DLB_GLOBAL_REGION_NAME = "Global"
      type(c_ptr), parameter :: DLB_GLOBAL_REGION = c_null_ptr
      type(c_ptr), parameter :: DLB_MPI_REGION = c_null_ptr
      type(c_ptr), parameter :: DLB_IMPLICIT_REGION = c_null_ptr
      integer(c_intptr_t), parameter :: DLB_GLOBAL_REGION_INT = 0
      integer(c_intptr_t), parameter :: DLB_LAST_OPEN_REGION_INT = 1
      integer, parameter :: DLB_MONITOR_NAME_MAX = 128
