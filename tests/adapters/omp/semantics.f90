! gfortran's calls of the routines added for OpenMP 5 semantics: allocators
! (omp_init_allocator with traits, the default allocator, omp_alloc and
! omp_free through their C bindings), omp_pause_resource(_all),
! omp_get_max_task_priority, omp_display_env, omp_in_final in a final task
! and a nested lock owned by a task. Prints what libgomp prints too.
program semantics
  use omp_lib
  use, intrinsic :: iso_c_binding
  implicit none
  integer(omp_allocator_handle_kind) :: a, b
  type(omp_alloctrait) :: traits(3)
  type(c_ptr) :: p
  integer(c_int), pointer :: v(:)
  integer :: i, inner, own, other, failures
  integer(omp_nest_lock_kind) :: nl

  failures = 0
  traits(1) = omp_alloctrait(omp_atk_alignment, 64)
  traits(2) = omp_alloctrait(omp_atk_pool_size, 1000)
  traits(3) = omp_alloctrait(omp_atk_fallback, omp_atv_null_fb)
  a = omp_init_allocator(omp_default_mem_space, 3, traits)
  print '(a,l2)', 'allocator made', a /= omp_null_allocator
  p = omp_alloc(400_c_size_t, a)
  print '(a,l2,i4)', 'aligned', c_associated(p), int(mod(transfer(p, 0_c_intptr_t), 64_c_intptr_t))
  call c_f_pointer(p, v, [100])
  v = [(i, i = 1, 100)]
  print '(a,i6)', 'sum', sum(v)
  print '(a,l2)', 'pool full', c_associated(omp_alloc(600_c_size_t, a))
  call omp_free(p, a)
  b = omp_init_allocator(omp_high_bw_mem_space, 0, traits)
  print '(a,l2)', 'high_bw space', b /= omp_null_allocator
  call omp_set_default_allocator(omp_low_lat_mem_alloc)
  print '(a,l2)', 'default', omp_get_default_allocator() == omp_low_lat_mem_alloc
  call omp_set_default_allocator(omp_default_mem_alloc)
  call omp_destroy_allocator(a)
  print '(a,2i3)', 'pause', omp_pause_resource(omp_pause_soft, 0), omp_pause_resource_all(omp_pause_hard)
  print '(a,i3)', 'max task priority', omp_get_max_task_priority()
  call omp_display_env(.false.)

  inner = -1
  !$omp parallel
  !$omp single
  !$omp task final(.true.) shared(inner)
  !$omp task shared(inner)
  if (omp_in_final()) inner = 1
  !$omp end task
  !$omp end task
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  print '(a,i3)', 'included in final', inner

  call omp_init_nest_lock(nl)
  own = -1
  other = -1
  !$omp parallel
  !$omp single
  !$omp task shared(nl, own, other)
  call omp_set_nest_lock(nl)
  own = omp_test_nest_lock(nl)
  !$omp task if(.false.) shared(nl, other)
  other = omp_test_nest_lock(nl)
  !$omp end task
  call omp_unset_nest_lock(nl)
  call omp_unset_nest_lock(nl)
  !$omp end task
  !$omp end single
  !$omp end parallel
  call omp_destroy_nest_lock(nl)
  print '(a,2i3)', 'nest lock: owner, other task', own, other
  if (inner /= 1 .or. own /= 2 .or. other /= 0) failures = failures + 1
  if (failures == 0) print '(a)', 'semantics_f90: OK'
  if (failures /= 0) stop 1
end program semantics
