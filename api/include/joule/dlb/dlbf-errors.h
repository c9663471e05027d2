! dlbf-errors.h: DLB's return codes (dlb_errors.h for Fortran; how to use it and
! what the arguments become: docs/dlb-api.md, "Fortran").

      integer, parameter :: DLB_NOUPDT = 2
      integer, parameter :: DLB_NOTED = 1
      integer, parameter :: DLB_SUCCESS = 0
      integer, parameter :: DLB_ERR_UNKNOWN = -1
      integer, parameter :: DLB_ERR_NOINIT = -2
      integer, parameter :: DLB_ERR_INIT = -3
      integer, parameter :: DLB_ERR_DISBLD = -4
      integer, parameter :: DLB_ERR_NOSHMEM = -5
      integer, parameter :: DLB_ERR_NOPROC = -6
      integer, parameter :: DLB_ERR_PDIRTY = -7
      integer, parameter :: DLB_ERR_PERM = -8
      integer, parameter :: DLB_ERR_TIMEOUT = -9
      integer, parameter :: DLB_ERR_NOCBK = -10
      integer, parameter :: DLB_ERR_NOENT = -11
      integer, parameter :: DLB_ERR_NOCOMP = -12
      integer, parameter :: DLB_ERR_REQST = -13
      integer, parameter :: DLB_ERR_NOMEM = -14
      integer, parameter :: DLB_ERR_NOPOL = -15
      integer, parameter :: DLB_ERR_NOTALP = -16
      integer, parameter :: DLB_ERR_NOLEWI = -17
      integer, parameter :: DLB_ERR_NOMNGO = -18
