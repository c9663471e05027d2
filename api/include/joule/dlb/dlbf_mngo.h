! dlbf_mngo.h: DLB's application manager API (dlb_mngo.h for Fortran).
! joule has no manager: every call answers DLB_ERR_NOMNGO and
! dlb_mngo_regionregister a null pointer (docs/dlb-api.md, "Functions").

      integer, parameter :: DLB_LEWI_REGION = 1
      integer, parameter :: DLB_DROM_REGION = 2

      interface
        function dlb_mngo_wake_manager() result(ierr) bind(c,           &
     &      name='DLB_MNGO_Wake_manager')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_mngo_wake_manager

        function dlb_mngo_enable_lewi() result(ierr) bind(c,            &
     &      name='DLB_MNGO_Enable_LeWI')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_mngo_enable_lewi

        function dlb_mngo_poll_drom() result(ierr) bind(c,              &
     &      name='DLB_MNGO_Poll_DROM')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_mngo_poll_drom

!       Not bind(c), as in DLB: a Fortran name and flags (libjoule
!       defines the compiler's external symbol, dlb_mngo_regionregister_).
        function dlb_mngo_regionregister(region_name, flags)            &
     &      result(handle)
            use iso_c_binding
            type(c_ptr) :: handle
            character(len=*), intent(in) :: region_name
            integer(kind=c_int), value, intent(in) :: flags
        end function dlb_mngo_regionregister

        function dlb_mngo_regionstart(handle) result(ierr) bind(c,      &
     &      name='DLB_MNGO_RegionStart')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_mngo_regionstart

        function dlb_mngo_regionstop(handle) result(ierr) bind(c,       &
     &      name='DLB_MNGO_RegionStop')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_mngo_regionstop
      end interface
