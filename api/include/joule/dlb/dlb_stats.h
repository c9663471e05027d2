/* <dlb_stats.h>: DLB's statistics API, answered from joule's node table
 * (api/src/dlb_stats_api.cpp; docs/dlb-api.md). A monitor attaches with
 * DLB_Stats_Init (DLB_ERR_NOSHMEM when the node has no table) and asks
 * about the table's processes. Usage is in percent of one CPU (100 per CPU
 * busy), from the process's CPU time (/proc): the average since it started,
 * or since this monitor's previous query of that pid; -1.0 for a pid not in
 * the table. Active CPUs: those the process runs on now (owned and busy, or
 * borrowed). Not answered (DLB_ERR_NOCOMP): the load average and the CPU
 * state percentages, which need a history of states joule does not keep. */
#ifndef JOULE_DLB_COMPAT_STATS_H
#define JOULE_DLB_COMPAT_STATS_H

#include "../dlb.h"

#ifdef __cplusplus
extern "C" {
#endif

JOULE_EXPORT int DLB_Stats_Init(void);
JOULE_EXPORT int DLB_Stats_Finalize(void);
JOULE_EXPORT int DLB_Stats_GetNumCpus(int *ncpus);
JOULE_EXPORT int DLB_Stats_GetPidList(int *pidlist, int *nelems, int max_len);
JOULE_EXPORT int DLB_Stats_GetCpuUsage(int pid, double *usage);
JOULE_EXPORT int DLB_Stats_GetCpuAvgUsage(int pid, double *usage);
JOULE_EXPORT int DLB_Stats_GetCpuUsageList(double *usagelist, int *nelems, int max_len);
JOULE_EXPORT int DLB_Stats_GetCpuAvgUsageList(double *avgusagelist, int *nelems, int max_len);
JOULE_EXPORT int DLB_Stats_GetNodeUsage(double *usage);
JOULE_EXPORT int DLB_Stats_GetNodeAvgUsage(double *usage);
JOULE_EXPORT int DLB_Stats_GetActiveCpus(int pid, int *ncpus);
JOULE_EXPORT int DLB_Stats_GetActiveCpusList(int *cpuslist, int *nelems, int max_len);
JOULE_EXPORT int DLB_Stats_GetLoadAvg(int pid, double *load);
JOULE_EXPORT int DLB_Stats_GetCpuStateIdle(int cpu, float *percentage);
JOULE_EXPORT int DLB_Stats_GetCpuStateOwned(int cpu, float *percentage);
JOULE_EXPORT int DLB_Stats_GetCpuStateGuested(int cpu, float *percentage);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_COMPAT_STATS_H */
