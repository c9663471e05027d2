! A multi-zone MPI + OpenMP code in the manner of the NPB multi-zone family:
! four zones of unequal width side by side along x, split over 2 ranks
! (rank 0 the two narrow ones, rank 1 the two wide ones: an imbalanced
! split). Each step exchanges the zones' boundary columns (copies inside a
! rank, MPI_Sendrecv across ranks), then relaxes every zone with an
! OpenMP-parallel Jacobi sweep. Rank 0 prints per-zone sums and a checksum.
! Every value is independent of the team size and of the schedule (each
! point is written by one iteration; the residual is a max reduction), so
! runs on libgomp and on libjoule-omp must print the same digits.
program multizone
  use mpi
  implicit none
  integer, parameter :: nzones = 4, ny = 40, nsteps = 60
  integer, parameter :: widths(nzones) = (/ 16, 24, 48, 72 /)
  integer, parameter :: owner(nzones) = (/ 0, 0, 1, 1 /)
  type zone_t
    double precision, allocatable :: u(:, :), v(:, :)
  end type zone_t
  type(zone_t) :: z(nzones)
  integer :: rank, nranks, ierr, iz, step
  double precision :: res, local_res, zsum(nzones), all_sum(nzones)

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  if (nranks /= 2) then
    if (rank == 0) print '(a)', 'multizone: run on 2 ranks'
    call mpi_abort(mpi_comm_world, 2, ierr)
  end if

  do iz = 1, nzones
    if (owner(iz) /= rank) cycle
    allocate (z(iz)%u(0:widths(iz) + 1, 0:ny + 1), z(iz)%v(0:widths(iz) + 1, 0:ny + 1))
    call init_zone(z(iz)%u, widths(iz), iz)
    z(iz)%v = z(iz)%u
  end do

  do step = 1, nsteps
    call exchange(z, rank)
    local_res = 0d0
    do iz = 1, nzones
      if (owner(iz) /= rank) cycle
      call relax(z(iz)%u, z(iz)%v, widths(iz), res)
      local_res = max(local_res, res)
    end do
    call mpi_allreduce(local_res, res, 1, mpi_double_precision, mpi_max, mpi_comm_world, ierr)
  end do

  zsum = 0d0
  do iz = 1, nzones
    if (owner(iz) == rank) zsum(iz) = sum(z(iz)%u(1:widths(iz), 1:ny))
  end do
  ! Each zone's sum comes from one rank (the others add 0): exact.
  call mpi_reduce(zsum, all_sum, nzones, mpi_double_precision, mpi_sum, 0, mpi_comm_world, ierr)
  if (rank == 0) then
    do iz = 1, nzones
      print '(a,i0,a,es25.17)', 'zone ', iz, ' sum ', all_sum(iz)
    end do
    print '(a,es25.17)', 'residual ', res
    print '(a,es25.17)', 'checksum ', all_sum(1) + all_sum(2) + all_sum(3) + all_sum(4)
  end if
  call mpi_finalize(ierr)

contains

  subroutine init_zone(u, nx, iz)
    double precision, intent(out) :: u(0:, 0:)
    integer, intent(in) :: nx, iz
    integer :: i, j
    do j = 0, ny + 1
      do i = 0, nx + 1
        u(i, j) = 0d0
      end do
    end do
    u(:, 0) = dble(iz)          ! a hot bottom edge, a different temperature per zone
    u(:, ny + 1) = 0.5d0
  end subroutine init_zone

  ! One Jacobi sweep over a zone's interior; res is the largest change.
  subroutine relax(u, v, nx, res)
    double precision, intent(inout) :: u(0:, 0:), v(0:, 0:)
    integer, intent(in) :: nx
    double precision, intent(out) :: res
    integer :: i, j
    res = 0d0
    !$omp parallel do private(i) reduction(max:res) schedule(static)
    do j = 1, ny
      do i = 1, nx
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        res = max(res, abs(v(i, j) - u(i, j)))
      end do
    end do
    !$omp end parallel do
    !$omp parallel do private(i) schedule(dynamic, 4)
    do j = 1, ny
      do i = 1, nx
        u(i, j) = v(i, j)
      end do
    end do
    !$omp end parallel do
  end subroutine relax

  ! Zone iz's right ghost column is zone iz+1's first column and back;
  ! the outer edges stay fixed at 0. Across ranks: one sendrecv per side.
  subroutine exchange(z, rank)
    type(zone_t), intent(inout) :: z(:)
    integer, intent(in) :: rank
    integer :: iz, ierr, stat(mpi_status_size)
    double precision :: col(0:ny + 1)
    do iz = 1, nzones - 1
      if (owner(iz) == rank .and. owner(iz + 1) == rank) then
        z(iz)%u(widths(iz) + 1, :) = z(iz + 1)%u(1, :)
        z(iz + 1)%u(0, :) = z(iz)%u(widths(iz), :)
      else if (owner(iz) == rank) then
        call mpi_sendrecv(z(iz)%u(widths(iz), :), ny + 2, mpi_double_precision, owner(iz + 1), &
                          iz, col, ny + 2, mpi_double_precision, owner(iz + 1), iz + 100, &
                          mpi_comm_world, stat, ierr)
        z(iz)%u(widths(iz) + 1, :) = col
      else if (owner(iz + 1) == rank) then
        call mpi_sendrecv(z(iz + 1)%u(1, :), ny + 2, mpi_double_precision, owner(iz), iz + 100, &
                          col, ny + 2, mpi_double_precision, owner(iz), iz, mpi_comm_world, &
                          stat, ierr)
        z(iz + 1)%u(0, :) = col
      end if
    end do
  end subroutine exchange

end program multizone
