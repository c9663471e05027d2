! Host teams from Fortran: gfortran calls the same GOMP_teams_reg as C, but
! the teams ICV routines by their Fortran names (omp_set_num_teams_, ...).
! Prints what a conforming runtime cannot change and checks itself.
program teams_f90
  use omp_lib
  implicit none
  integer :: i, t, failures, seen(0:7), limit(0:7)
  integer(8) :: s
  failures = 0
  seen = 0
  limit = 0
  !$omp teams num_teams(3) thread_limit(2)
  seen(omp_get_team_num()) = omp_get_num_teams()
  !$omp end teams
  if (any(seen(0:2) /= 3) .or. any(seen(3:7) /= 0)) failures = failures + 1
  s = 0
  !$omp teams distribute parallel do num_teams(4) reduction(+:s)
  do i = 1, 100000
    s = s + mod(i, 89)
  end do
  if (s /= expected()) failures = failures + 1
  call omp_set_num_teams(5)
  call omp_set_teams_thread_limit(2)
  seen = 0
  !$omp teams
  seen(omp_get_team_num()) = omp_get_num_teams()
  limit(omp_get_team_num()) = team_limit()
  !$omp end teams
  if (any(seen(0:4) /= 5) .or. any(limit(0:4) /= 2)) failures = failures + 1
  if (omp_get_max_teams() /= 5 .or. omp_get_teams_thread_limit() /= 2) failures = failures + 1
  call omp_set_num_teams(int(0, 8))
  call omp_set_teams_thread_limit(int(0, 8))
  if (omp_get_teams_thread_limit() /= 0) failures = failures + 1
  print '(a,i0,a,8i2,a,i0)', 'teams_f90: sum ', s, ' seen', seen, ' limit ', limit(0)
  if (failures /= 0) then
    print '(a,i0,a)', 'teams_f90: ', failures, ' check(s) failed'
    stop 1
  end if
  print '(a)', 'teams_f90: OK'
contains
  integer(8) function expected()
    integer :: j
    expected = 0
    do j = 1, 100000
      expected = expected + mod(j, 89)
    end do
  end function
  ! gfortran rejects omp_get_thread_limit lexically inside teams.
  integer function team_limit()
    team_limit = omp_get_thread_limit()
  end function
end program
