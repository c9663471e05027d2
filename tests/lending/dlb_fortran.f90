! A Fortran program written against DLB's Fortran headers (dlbf.h,
! dlbf_drom.h, dlbf_talp.h, dlbf_mngo.h), built with gfortran against joule's: the
! version, LeWI with an observer thread, a monitoring region and its POP
! metrics, the node metrics and times, DROM. Exits 1 on a wrong answer.
program dlb_fortran
    use iso_c_binding
    implicit none
    include 'dlbf.h'
    include 'dlbf_drom.h'
    include 'dlbf_talp.h'
    include 'dlbf_mngo.h'
    type(c_ptr) :: region
    type(dlb_pop_metrics_t) :: pop
    type(dlb_node_metrics_t) :: node
    type(dlb_node_times_t) :: times(4)
    integer(kind=c_int) :: major, minor, patch, ncpus, n
    character(kind=c_char, len=*), parameter :: name = 'fortran' // c_null_char
    real(kind=c_double) :: x
    integer :: i

    call check(dlb_getversion(major, minor, patch), DLB_SUCCESS, 'DLB_GetVersion')
    call check(major * 100 + minor, 304, 'version 3.4')
    call check(dlb_init(0, c_null_ptr, c_null_char), DLB_SUCCESS, 'DLB_Init')

    region = dlb_monitoringregionregister(name)
    if (.not. c_associated(region)) call fail('DLB_MonitoringRegionRegister')
    call check(dlb_monitoringregionstart(region), DLB_SUCCESS, 'Start')
    x = 0
    do i = 1, 20000000
        x = x + sqrt(real(i, c_double))
    end do
    call check(dlb_monitoringregionstop(region), DLB_SUCCESS, 'Stop')
    call check(dlb_talp_collectpopmetrics(region, pop), DLB_SUCCESS, 'CollectPOPMetrics')
    if (pop%useful_time <= 0 .or. pop%num_nodes /= 1 .or. x <= 0) call fail('POP metrics')
    if (pop%name(1) /= 'f' .or. pop%name(8) /= c_null_char) call fail('POP name')

    call check(dlb_talp_querypopnodemetrics(name, node), DLB_SUCCESS, 'QueryPOPNodeMetrics')
    call check(node%processes_per_node, 1, 'processes_per_node')
    if (node%total_useful_time /= pop%useful_time) call fail('node useful time')
    call check(dlb_talp_getnodetimes(name, times, n, 4), DLB_SUCCESS, 'GetNodeTimes')
    call check(n, 1, 'GetNodeTimes count')
    if (times(1)%useful_time /= pop%useful_time) call fail('node times')

    call check(dlb_drom_getnumcpus(ncpus), DLB_SUCCESS, 'DLB_DROM_GetNumCpus')
    if (ncpus < 1) call fail('ncpus')
    call check(dlb_setobserverrole(logical(.true., c_bool)), DLB_SUCCESS, 'SetObserverRole')
    call check(dlb_lend(), DLB_ERR_PERM, 'DLB_Lend as an observer')
    call check(dlb_setobserverrole(logical(.false., c_bool)), DLB_SUCCESS, 'SetObserverRole')
    call check(dlb_drom_recoverstolencpus(0), DLB_ERR_NOPROC, 'RecoverStolenCpus(0)')
    call check(dlb_mngo_wake_manager(), DLB_ERR_NOMNGO, 'DLB_MNGO_Wake_manager')
    if (c_associated(dlb_mngo_regionregister('r', DLB_LEWI_REGION))) call fail('MNGO region')
    call check(dlb_finalize(), DLB_SUCCESS, 'DLB_Finalize')
    print '(a)', 'dlb_fortran: ok'

contains

    subroutine check(got, want, what)
        integer(kind=c_int), intent(in) :: got
        integer, intent(in) :: want
        character(len=*), intent(in) :: what
        if (got /= want) then
            print '(a, a, i0, a, i0)', what, ': got ', got, ', want ', want
            stop 1
        end if
    end subroutine check

    subroutine fail(what)
        character(len=*), intent(in) :: what
        print '(a, a)', 'wrong: ', what
        stop 1
    end subroutine fail
end program dlb_fortran
