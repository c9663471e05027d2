/* DLB's return codes, under the header name DLB programs include
 * (<dlb_errors.h>). Values as documented for DLB's API ("Error codes" in the
 * DLB user guide), so a program printing or comparing raw codes behaves the
 * same against joule. */
#ifndef JOULE_DLB_ERRORS_H
#define JOULE_DLB_ERRORS_H

enum dlb_status_e {
  DLB_NOUPDT = 2, /* nothing to do */
  DLB_NOTED = 1,  /* will happen later */
  DLB_SUCCESS = 0,
  DLB_ERR_UNKNOWN = -1,
  DLB_ERR_NOINIT = -2,  /* DLB_Init not called */
  DLB_ERR_INIT = -3,    /* already initialised */
  DLB_ERR_DISBLD = -4,  /* DLB_Disable in force */
  DLB_ERR_NOSHMEM = -5, /* no node table to attach to */
  DLB_ERR_NOPROC = -6,  /* no such process (or a participant died) */
  DLB_ERR_PDIRTY = -7,
  DLB_ERR_PERM = -8,
  DLB_ERR_TIMEOUT = -9,
  DLB_ERR_NOCBK = -10,
  DLB_ERR_NOENT = -11,  /* no such variable / region */
  DLB_ERR_NOCOMP = -12, /* not supported by joule (docs/dlb-api.md) */
  DLB_ERR_REQST = -13,
  DLB_ERR_NOMEM = -14,
  DLB_ERR_NOPOL = -15,
  DLB_ERR_NOTALP = -16, /* monitoring regions used before DLB_Init */
  DLB_ERR_NOLEWI = -17, /* LeWI is not enabled (DLB_ARGS --lewi=no) */
  DLB_ERR_NOMNGO = -18  /* MNGO is not initialized: joule has no MNGO (dlb_mngo.h) */
};

#endif /* JOULE_DLB_ERRORS_H */
