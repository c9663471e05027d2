! Target constructs from Fortran on a node without an offload device:
! gfortran calls GOMP_target_ext as gcc does, and the device queries by
! their Fortran names (omp_get_num_devices_ ...). Prints only what a
! conforming runtime cannot change (gomp_target_f90_vs_libgomp); stops
! with status 1 on a wrong result.
program target_f90
  use omp_lib
  implicit none
  integer, parameter :: n = 100
  integer :: i, total, level, limit
  integer :: a(n)
  integer(8) :: dev8
  logical :: initial

  a = [(i, i = 1, n)]
  total = 0
  !$omp target map(tofrom: a, total) map(from: level, initial)
  level = omp_get_level()
  initial = omp_is_initial_device()
  do i = 1, n
    a(i) = 2 * a(i)
  end do
  !$omp parallel do reduction(+: total)
  do i = 1, n
    total = total + a(i)
  end do
  !$omp end target
  !$omp target thread_limit(3) map(from: limit)
  limit = omp_get_thread_limit()
  !$omp end target
  print '(a, i0, a, i0, a, l1, a, i0)', 'target: total ', total, ' level ', level, &
    ' initial ', initial, ' thread_limit ', limit
  print '(a, i0, a, i0, a, i0, a, i0)', 'devices ', omp_get_num_devices(), ' initial ', &
    omp_get_initial_device(), ' default ', omp_get_default_device(), ' device_num ', &
    omp_get_device_num()
  call omp_set_default_device(2)
  i = omp_get_default_device()
  dev8 = 0
  call omp_set_default_device(dev8)
  print '(a, i0, a, i0, a, l1)', 'default set: ', i, ' then ', omp_get_default_device(), &
    ' host ', omp_is_initial_device()
  if (total /= n * (n + 1) .or. level /= 0 .or. .not. initial .or. limit /= 3 .or. i /= 2) stop 1
  print '(a)', 'target_f90: OK'
end program target_f90
