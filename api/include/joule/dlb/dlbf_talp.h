! dlbf_talp.h: DLB's TALP API (dlb_talp.h for Fortran; how to use it and
! what the arguments become: docs/dlb-api.md, "Fortran").

! The structures of dlb_talp.h, field for field (bind(c) types: the
! layout of the C structures). The region constants: dlbf_types.h.
      include 'dlbf_types.h'

      type, bind(c) :: dlb_monitor_t
          type(c_ptr) :: name
          integer(kind=c_int) :: num_cpus
          real(kind=c_float) :: avg_cpus
          integer(kind=c_int64_t) :: cycles
          integer(kind=c_int64_t) :: instructions
          integer(kind=c_int) :: num_measurements
          integer(kind=c_int) :: num_resets
          integer(kind=c_int64_t) :: num_mpi_calls
          integer(kind=c_int64_t) :: num_omp_parallels
          integer(kind=c_int64_t) :: num_omp_tasks
          integer(kind=c_int64_t) :: start_time
          integer(kind=c_int64_t) :: stop_time
          integer(kind=c_int64_t) :: elapsed_time
          integer(kind=c_int64_t) :: useful_time
          integer(kind=c_int64_t) :: mpi_time
          integer(kind=c_int64_t) :: omp_load_imbalance_time
          integer(kind=c_int64_t) :: omp_scheduling_time
          integer(kind=c_int64_t) :: omp_serialization_time
          type(c_ptr) :: data
      end type dlb_monitor_t

      type, bind(c) :: dlb_pop_metrics_t
          character(kind=c_char) :: name(128)
          integer(kind=c_int) :: num_cpus
          integer(kind=c_int) :: num_mpi_ranks
          integer(kind=c_int) :: num_nodes
          real(kind=c_float) :: avg_cpus
          real(kind=c_double) :: cycles
          real(kind=c_double) :: instructions
          integer(kind=c_int64_t) :: num_measurements
          integer(kind=c_int64_t) :: num_mpi_calls
          integer(kind=c_int64_t) :: num_omp_parallels
          integer(kind=c_int64_t) :: num_omp_tasks
          integer(kind=c_int64_t) :: elapsed_time
          integer(kind=c_int64_t) :: useful_time
          integer(kind=c_int64_t) :: mpi_time
          integer(kind=c_int64_t) :: omp_load_imbalance_time
          integer(kind=c_int64_t) :: omp_scheduling_time
          integer(kind=c_int64_t) :: omp_serialization_time
          real(kind=c_float) :: parallel_efficiency
          real(kind=c_float) :: mpi_parallel_efficiency
          real(kind=c_float) :: mpi_communication_efficiency
          real(kind=c_float) :: mpi_load_balance
          real(kind=c_float) :: mpi_load_balance_in
          real(kind=c_float) :: mpi_load_balance_out
          real(kind=c_float) :: omp_parallel_efficiency
          real(kind=c_float) :: omp_load_balance
          real(kind=c_float) :: omp_scheduling_efficiency
          real(kind=c_float) :: omp_serialization_efficiency
      end type dlb_pop_metrics_t

      type, bind(c) :: dlb_node_metrics_t
          character(kind=c_char) :: name(128)
          integer(kind=c_int) :: node_id
          integer(kind=c_int) :: processes_per_node
          integer(kind=c_int64_t) :: total_useful_time
          integer(kind=c_int64_t) :: total_mpi_time
          integer(kind=c_int64_t) :: max_useful_time
          integer(kind=c_int64_t) :: max_mpi_time
          real(kind=c_float) :: parallel_efficiency
          real(kind=c_float) :: communication_efficiency
          real(kind=c_float) :: load_balance
      end type dlb_node_metrics_t

      type, bind(c) :: dlb_node_times_t
          integer(kind=c_int) :: pid
          integer(kind=c_int64_t) :: mpi_time
          integer(kind=c_int64_t) :: useful_time
      end type dlb_node_times_t

      interface
        function dlb_talp_attach() result(ierr) bind(c,                 &
     &      name='DLB_TALP_Attach')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_talp_attach

        function dlb_talp_detach() result(ierr) bind(c,                 &
     &      name='DLB_TALP_Detach')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_talp_detach

        function dlb_talp_getnumcpus(ncpus) result(ierr) bind(c,        &
     &      name='DLB_TALP_GetNumCPUs')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            integer(kind=c_int), intent(out) :: ncpus
        end function dlb_talp_getnumcpus

        function dlb_talp_getpidlist(pidlist, nelems, max_len)          &
     &      result(ierr) bind(c, name='DLB_TALP_GetPidList')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            integer(kind=c_int), intent(out) :: pidlist(*)
            integer(kind=c_int), intent(out) :: nelems
            integer(kind=c_int), value, intent(in) :: max_len
        end function dlb_talp_getpidlist

        function dlb_talp_gettimes(pid, mpi_time, useful_time)          &
     &      result(ierr) bind(c, name='DLB_TALP_GetTimes')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            integer(kind=c_int), value, intent(in) :: pid
            real(kind=c_double), intent(out) :: mpi_time
            real(kind=c_double), intent(out) :: useful_time
        end function dlb_talp_gettimes

        function dlb_talp_getnodetimes(name, node_times_list, nelems,   &
     &      max_len) result(ierr) bind(c,                               &
     &      name='DLB_TALP_GetNodeTimes')
            use iso_c_binding
            import :: dlb_node_times_t
            integer(kind=c_int) :: ierr
            character(kind=c_char), intent(in) :: name(*)
            type(dlb_node_times_t), intent(out) :: node_times_list(*)
            integer(kind=c_int), intent(out) :: nelems
            integer(kind=c_int), value, intent(in) :: max_len
        end function dlb_talp_getnodetimes

        function dlb_talp_querypopnodemetrics(name, node_metrics)       &
     &      result(ierr) bind(c, name='DLB_TALP_QueryPOPNodeMetrics')
            use iso_c_binding
            import :: dlb_node_metrics_t
            integer(kind=c_int) :: ierr
            character(kind=c_char), intent(in) :: name(*)
            type(dlb_node_metrics_t), intent(out) :: node_metrics
        end function dlb_talp_querypopnodemetrics

        function dlb_monitoringregiongetglobal() result(handle)         &
     &      bind(c, name='DLB_MonitoringRegionGetGlobal')
            use iso_c_binding
            type(c_ptr) :: handle
        end function dlb_monitoringregiongetglobal

        function dlb_monitoringregiongetimplicit() result(handle)       &
     &      bind(c, name='DLB_MonitoringRegionGetImplicit')
            use iso_c_binding
            type(c_ptr) :: handle
        end function dlb_monitoringregiongetimplicit

        function dlb_monitoringregiongetmpiregion() result(handle)      &
     &      bind(c, name='DLB_MonitoringRegionGetMPIRegion')
            use iso_c_binding
            type(c_ptr) :: handle
        end function dlb_monitoringregiongetmpiregion

        function dlb_monitoringregionregister(name) result(handle)      &
     &      bind(c, name='DLB_MonitoringRegionRegister')
            use iso_c_binding
            type(c_ptr) :: handle
            character(kind=c_char), intent(in) :: name(*)
        end function dlb_monitoringregionregister

        function dlb_monitoringregionstart(handle) result(ierr)         &
     &      bind(c, name='DLB_MonitoringRegionStart')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_monitoringregionstart

        function dlb_monitoringregionstop(handle) result(ierr) bind(c,  &
     &      name='DLB_MonitoringRegionStop')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_monitoringregionstop

        function dlb_monitoringregionreset(handle) result(ierr)         &
     &      bind(c, name='DLB_MonitoringRegionReset')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_monitoringregionreset

        function dlb_monitoringregionreport(handle) result(ierr)        &
     &      bind(c, name='DLB_MonitoringRegionReport')
            use iso_c_binding
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: handle
        end function dlb_monitoringregionreport

        function dlb_monitoringregionsupdate() result(ierr) bind(c,     &
     &      name='DLB_MonitoringRegionsUpdate')
            use iso_c_binding
            integer(kind=c_int) :: ierr
        end function dlb_monitoringregionsupdate

        function dlb_talp_collectpopmetrics(monitor, pop_metrics)       &
     &      result(ierr) bind(c, name='DLB_TALP_CollectPOPMetrics')
            use iso_c_binding
            import :: dlb_pop_metrics_t
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: monitor
            type(dlb_pop_metrics_t), intent(out) :: pop_metrics
        end function dlb_talp_collectpopmetrics

        function dlb_talp_collectpopnodemetrics(monitor, node_metrics)  &
     &      result(ierr) bind(c,                                        &
     &      name='DLB_TALP_CollectPOPNodeMetrics')
            use iso_c_binding
            import :: dlb_node_metrics_t
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: monitor
            type(dlb_node_metrics_t), intent(out) :: node_metrics
        end function dlb_talp_collectpopnodemetrics

        function dlb_talp_collectnodemetrics(monitor, node_metrics)     &
     &      result(ierr) bind(c, name='DLB_TALP_CollectNodeMetrics')
            use iso_c_binding
            import :: dlb_node_metrics_t
            integer(kind=c_int) :: ierr
            type(c_ptr), value, intent(in) :: monitor
            type(dlb_node_metrics_t), intent(out) :: node_metrics
        end function dlb_talp_collectnodemetrics
      end interface
