! User-declared reductions (declare reduction) on a derived type through the
! task-reduction ABI, as far as gfortran 12 compiles them: taskloop
! reduction, and parallel / do reduction(task, ...). (gfortran 12 stops
! with an internal compiler error on in_reduction with a user-declared
! reduction, so taskgroup task_reduction with in_reduction tasks is left
! out.) The printed values (integer sums, a minimum whose ties go to the
! smaller index) do not depend on the order of the combinations, so they
! must match libgomp's (compare_runs.sh).
program task_udr_f90
  use omp_lib
  implicit none
  type stat
    integer :: total = 0, count = 0, minv = huge(0), mini = huge(0)
  end type
  !$omp declare reduction(sr : stat : stat_merge(omp_out, omp_in)) initializer(stat_init(omp_priv))
  !$omp declare reduction(pr : stat : omp_out = stat(omp_out%total + omp_in%total, &
  !$omp&   omp_out%count + omp_in%count, min(omp_out%minv, omp_in%minv), 0)) &
  !$omp&   initializer(omp_priv = stat(0, 0, huge(0), 0))
  integer, parameter :: n = 300
  type(stat) :: s, p, w, e
  integer :: i, nt, failures
  failures = 0
  call stat_init(e)
  do i = 0, n - 1
    call stat_add(e, val(i), i)
  end do

  s = stat(5, 1, huge(0), huge(0))  ! the original takes part
  p = stat(0, 0, huge(0), 0)
  !$omp parallel
  !$omp single
  !$omp taskloop reduction(sr : s) grainsize(7)
  do i = 0, n - 1
    call stat_add(s, val(i), i)
  end do
  !$omp taskloop reduction(pr : p) num_tasks(11)
  do i = 0, n - 1
    p%total = p%total + i
    p%count = p%count + 1
    p%minv = min(p%minv, val(i))
  end do
  !$omp end single
  !$omp end parallel
  if (s%total /= e%total + 5 .or. s%count /= n + 1 .or. s%minv /= e%minv .or. s%mini /= e%mini) &
    failures = failures + 1
  if (p%total /= n * (n - 1) / 2 .or. p%count /= n .or. p%minv /= -50) failures = failures + 1
  print '(a,4i8)', 'taskloop stat:', s%total, s%count, s%minv, s%mini
  print '(a,3i8)', 'taskloop pr:', p%total, p%count, p%minv

  call stat_init(s)
  call stat_init(w)
  nt = 0
  !$omp parallel reduction(task, sr : s)
  !$omp master
  nt = omp_get_num_threads()
  !$omp end master
  do i = omp_get_thread_num(), n - 1, omp_get_num_threads()
    call stat_add(s, val(i), i)
  end do
  !$omp end parallel
  !$omp parallel
  !$omp do reduction(task, sr : w) schedule(dynamic, 5)
  do i = 0, n - 1
    call stat_add(w, val(i), i)
  end do
  !$omp end do
  !$omp end parallel
  if (nt < 1) failures = failures + 1
  if (s%total /= e%total .or. s%count /= n .or. s%minv /= e%minv .or. s%mini /= e%mini) &
    failures = failures + 1
  if (w%total /= e%total .or. w%count /= n .or. w%minv /= e%minv .or. w%mini /= e%mini) &
    failures = failures + 1
  print '(a,4i8)', 'parallel stat:', s%total, s%count, s%minv, s%mini
  print '(a,4i8)', 'do stat:', w%total, w%count, w%minv, w%mini
  if (failures /= 0) error stop 'task_udr_f90: a check failed'
  print '(a)', 'task_udr_f90: OK'
contains
  subroutine stat_add(s, v, i)
    type(stat), intent(inout) :: s
    integer, intent(in) :: v, i
    s%total = s%total + v
    s%count = s%count + 1
    if (v < s%minv .or. (v == s%minv .and. i < s%mini)) then
      s%minv = v
      s%mini = i
    end if
  end subroutine
  subroutine stat_merge(o, a)
    type(stat), intent(inout) :: o
    type(stat), intent(in) :: a
    o%total = o%total + a%total
    o%count = o%count + a%count
    if (a%minv < o%minv .or. (a%minv == o%minv .and. a%mini < o%mini)) then
      o%minv = a%minv
      o%mini = a%mini
    end if
  end subroutine
  subroutine stat_init(s)
    type(stat), intent(out) :: s
    s = stat(0, 0, huge(0), huge(0))
  end subroutine
  integer function val(i)
    integer, intent(in) :: i
    val = mod(i * 37, 101) - 50
  end function
end program
