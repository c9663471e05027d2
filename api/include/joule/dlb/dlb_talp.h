/* <dlb_talp.h>: TALP monitoring regions answered from joule's own
 * measurements (api/src/dlb_talp.cpp; what each field holds: docs/dlb-api.md).
 * Times are in nanoseconds, as in DLB's TALP documentation. Measured:
 * elapsed_time (wall clock), useful_time (CPU time of the process inside the
 * region, less its CPU time inside MPI calls), mpi_time and num_mpi_calls
 * (blocking MPI calls interposed by libjoule-mpi), num_cpus / avg_cpus (CPUs
 * the process held), num_measurements, num_resets, start_time / stop_time.
 * Not measured by joule, left 0: cycles, instructions, OpenMP counts and
 * times; the MPI and OpenMP efficiencies of dlb_pop_metrics_t are NAN ("not
 * available": they need the other ranks' times). */
#ifndef JOULE_DLB_COMPAT_TALP_H
#define JOULE_DLB_COMPAT_TALP_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "../dlb.h"

#define DLB_GLOBAL_REGION_NAME "Global"
#define DLB_GLOBAL_REGION NULL
/* DLB_MonitoringRegionStop's handle for the running region started last
 * (the global one aside); DLB_ERR_NOENT when none runs. */
#define DLB_LAST_OPEN_REGION ((dlb_monitor_t *)1)
#define DLB_MPI_REGION NULL /* DLB's older name of the global region */

enum { DLB_MONITOR_NAME_MAX = 128 };

typedef struct dlb_monitor_t {
  const char *name;
  int num_cpus;
  float avg_cpus;
  int64_t cycles;
  int64_t instructions;
  int num_measurements;
  int num_resets;
  int64_t num_mpi_calls;
  int64_t num_omp_parallels;
  int64_t num_omp_tasks;
  int64_t start_time;
  int64_t stop_time;
  int64_t elapsed_time;
  int64_t useful_time;
  int64_t mpi_time;
  int64_t omp_load_imbalance_time;
  int64_t omp_scheduling_time;
  int64_t omp_serialization_time;
  void *_data;
} dlb_monitor_t;

typedef struct dlb_pop_metrics_t {
  char name[DLB_MONITOR_NAME_MAX];
  int num_cpus;
  int num_mpi_ranks;
  int num_nodes;
  float avg_cpus;
  double cycles;
  double instructions;
  int64_t num_measurements;
  int64_t num_mpi_calls;
  int64_t num_omp_parallels;
  int64_t num_omp_tasks;
  int64_t elapsed_time;
  int64_t useful_time;
  int64_t mpi_time;
  int64_t omp_load_imbalance_time;
  int64_t omp_scheduling_time;
  int64_t omp_serialization_time;
  float parallel_efficiency;
  float mpi_parallel_efficiency;
  float mpi_communication_efficiency;
  float mpi_load_balance;
  float mpi_load_balance_in;
  float mpi_load_balance_out;
  float omp_parallel_efficiency;
  float omp_load_balance;
  float omp_scheduling_efficiency;
  float omp_serialization_efficiency;
} dlb_pop_metrics_t;

/* A region's times summed over the node's processes (DLB's field meanings;
 * how joule computes the efficiencies: docs/dlb-api.md). node_id is 0:
 * joule does not number nodes. */
typedef struct dlb_node_metrics_t {
  char name[DLB_MONITOR_NAME_MAX];
  int node_id;
  int processes_per_node;
  int64_t total_useful_time;
  int64_t total_mpi_time;
  int64_t max_useful_time;
  int64_t max_mpi_time;
  float parallel_efficiency;      /* communication_efficiency x load_balance */
  float communication_efficiency; /* max useful / average of (useful + MPI) */
  float load_balance;             /* average useful / max useful */
} dlb_node_metrics_t;

/* One process's times in a region, as it last published them. */
typedef struct dlb_node_times_t {
  pid_t pid;
  int64_t mpi_time;
  int64_t useful_time;
} dlb_node_times_t;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- queries about the node (as DLB_DROM_Attach / GetNumCpus / GetPidList) ---- */
JOULE_EXPORT int DLB_TALP_Attach(void);
JOULE_EXPORT int DLB_TALP_Detach(void);
JOULE_EXPORT int DLB_TALP_GetNumCPUs(int *ncpus);
JOULE_EXPORT int DLB_TALP_GetPidList(int *pidlist, int *nelems, int max_len);
/* Seconds of MPI and useful time of the global region. pid 0 or this
 * process only: other processes do not publish theirs (DLB_ERR_NOCOMP). */
JOULE_EXPORT int DLB_TALP_GetTimes(int pid, double *mpi_time, double *useful_time);
/* The times each process of the node published for region `name` (NULL:
 * the global region), at most max_len; *nelems is how many were written.
 * DLB_ERR_NOSHMEM when no process of the node table runs TALP. */
JOULE_EXPORT int DLB_TALP_GetNodeTimes(const char *name, dlb_node_times_t *node_times_list,
                                       int *nelems, int max_len);
/* The node metrics of region `name` from what the processes published;
 * DLB_ERR_NOENT when none published that region, DLB_ERR_NOSHMEM as above. */
JOULE_EXPORT int DLB_TALP_QueryPOPNodeMetrics(const char *name, dlb_node_metrics_t *node_metrics);

/* ---- monitoring regions (this process; DLB_ERR_NOTALP before DLB_Init) ---- */
/* The region running from DLB_Init to DLB_Finalize. */
JOULE_EXPORT dlb_monitor_t *DLB_MonitoringRegionGetGlobal(void);
/* DLB's older names of the global region. */
JOULE_EXPORT dlb_monitor_t *DLB_MonitoringRegionGetImplicit(void);
JOULE_EXPORT const dlb_monitor_t *DLB_MonitoringRegionGetMPIRegion(void);
/* The region of that name, created on first use; NULL before DLB_Init. */
JOULE_EXPORT dlb_monitor_t *DLB_MonitoringRegionRegister(const char *name);
/* Start / Stop: DLB_NOUPDT if already running / not running. Regions nest
 * freely: each has its own clock. */
JOULE_EXPORT int DLB_MonitoringRegionStart(dlb_monitor_t *handle);
JOULE_EXPORT int DLB_MonitoringRegionStop(dlb_monitor_t *handle);
JOULE_EXPORT int DLB_MonitoringRegionReset(dlb_monitor_t *handle);
/* Prints the region's values and POP metrics to stderr. */
JOULE_EXPORT int DLB_MonitoringRegionReport(const dlb_monitor_t *handle);
/* Brings the fields of running regions up to now. */
JOULE_EXPORT int DLB_MonitoringRegionsUpdate(void);
/* The POP metrics of one region of this process (num_mpi_ranks 0, one node). */
JOULE_EXPORT int DLB_TALP_CollectPOPMetrics(dlb_monitor_t *monitor, dlb_pop_metrics_t *pop_metrics);
/* Node-collective: every process of the node's default barrier calls it;
 * each publishes the region, and all get the same node metrics. */
JOULE_EXPORT int DLB_TALP_CollectPOPNodeMetrics(dlb_monitor_t *monitor,
                                                dlb_node_metrics_t *node_metrics);
/* DLB's older name of DLB_TALP_CollectPOPNodeMetrics. */
JOULE_EXPORT int DLB_TALP_CollectNodeMetrics(dlb_monitor_t *monitor,
                                             dlb_node_metrics_t *node_metrics);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_COMPAT_TALP_H */
