! The Fortran headers in fixed form: they compile as such too.
      program dlb_fixed
      use iso_c_binding
      implicit none
      include 'dlbf.h'
      include 'dlbf_drom.h'
      include 'dlbf_talp.h'
      include 'dlbf_mngo.h'
      if (dlb_getversion_ok() .ne. DLB_SUCCESS) stop 1
      contains
      integer function dlb_getversion_ok()
      integer(kind=c_int) :: a, b, c
      dlb_getversion_ok = dlb_getversion(a, b, c)
      end function dlb_getversion_ok
      end program dlb_fixed
