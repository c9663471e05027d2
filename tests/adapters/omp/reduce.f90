! gfortran -fopenmp: parallel do with reductions, omp_get_thread_num,
! a dynamic schedule, critical, single and locks; every team member must be
! a joule worker (linked against libjoule-omp only). stop 1 on a wrong answer.
program reduce
  use omp_lib
  implicit none
  interface
    integer(c_int) function joule_worker_id() bind(c, name='joule_worker_id')
      use iso_c_binding, only: c_int
    end function
  end interface
  integer, parameter :: n = 100000
  integer :: i, nthreads, members, failures
  integer(kind=omp_lock_kind) :: lock
  integer(kind=omp_nest_lock_kind) :: nest
  real(8) :: s, expect
  integer :: imax, counted, locked, seen(0:63), foreign

  failures = 0
  s = 0.0d0
  imax = -1
  !$omp parallel do reduction(+:s) reduction(max:imax) schedule(dynamic, 100)
  do i = 1, n
    s = s + dble(i) * 0.5d0
    imax = max(imax, i)
  end do
  !$omp end parallel do
  expect = 0.0d0
  do i = 1, n
    expect = expect + dble(i) * 0.5d0
  end do
  if (abs(s - expect) > 1.0d-6 * expect .or. imax /= n) failures = failures + 1

  seen = 0
  members = 0
  counted = 0
  locked = 0
  foreign = 0
  call omp_init_lock(lock)
  call omp_init_nest_lock(nest)
  !$omp parallel shared(seen, members, counted, locked, nthreads)
  !$omp single
  nthreads = omp_get_num_threads()
  !$omp end single
  seen(omp_get_thread_num()) = 1
  !$omp critical
  members = members + 1
  if (joule_worker_id() < 0) foreign = foreign + 1
  !$omp end critical
  call omp_set_lock(lock)
  locked = locked + 1
  call omp_unset_lock(lock)
  call omp_set_nest_lock(nest)
  call omp_set_nest_lock(nest)
  counted = counted + 1
  call omp_unset_nest_lock(nest)
  call omp_unset_nest_lock(nest)
  !$omp end parallel
  call omp_destroy_lock(lock)
  call omp_destroy_nest_lock(nest)
  if (members /= nthreads .or. sum(seen) /= nthreads .or. locked /= nthreads) failures = failures + 1
  if (counted /= nthreads .or. nthreads /= omp_get_max_threads()) failures = failures + 1
  if (foreign /= 0) failures = failures + 1

  if (failures /= 0) then
    print *, 'reduce: failures ', failures
    stop 1
  end if
  print *, 'reduce: OK threads', nthreads
end program reduce
