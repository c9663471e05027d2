! Detachable tasks from Fortran: omp_fulfill_event_ (gfortran passes the
! handle by value). The successor runs after the fulfil, which a sibling
! task makes after setting `flag`; prints what every conforming runtime
! prints, for compare_runs.sh.
program detach_f90
  use omp_lib
  implicit none
  integer(kind=omp_event_handle_kind) :: ev
  integer :: x, flag, round
  do round = 1, 20
    x = 0
    flag = 0
    !$omp parallel
    !$omp single
    !$omp task detach(ev) depend(out:x) shared(x)
    x = 1
    !$omp end task
    !$omp task depend(in:x) shared(x, flag)
    !$omp atomic read
    x = flag
    x = x * 10 + 1
    !$omp end task
    !$omp task firstprivate(ev) shared(flag)
    !$omp atomic write
    flag = 1
    call omp_fulfill_event(ev)
    !$omp end task
    !$omp taskwait
    !$omp end single
    !$omp end parallel
    if (x /= 11) stop 1
  end do
  print '(a, i0)', 'detach_f90: x = ', x
end program
