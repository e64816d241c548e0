/*
 * errors.c: hfft_mpi's last error (thread local, as hfft's), and the one
 * collective step that makes a failure on any rank the failure of all: the
 * lowest failing rank's status and message reach every rank, so that every
 * rank returns the same status and none waits for a rank that gave up.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/mpi/internal.h"

#define MESSAGE_BYTES 1024

static _Thread_local int last_status;
static _Thread_local char last_message[MESSAGE_BYTES];

int hfft_mpi_last_error(void) { return last_status; }

const char *hfft_mpi_last_error_message(void) { return last_message; }

const char *hfft_mpi_strerror(int status) {
    return status == HFFT_ERR_MPI ? "MPI call failed" : hfft_strerror(status);
}

void hfft__mpi_clear_error(void) {
    last_status = 0;
    last_message[0] = '\0';
}

const char *hfft__mpi_message(void) { return last_message; }

int hfft__mpi_fail(int status, const char *fmt, ...) {
    char text[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(last_message, text, sizeof text);
    last_status = status;
    return status;
}

int hfft__mpi_fail_mpi(int code, const char *call) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", code);
    return hfft__mpi_fail(HFFT_ERR_MPI, "%s failed: %.*s", call, len, text);
}

double hfft__mpi_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int hfft__mpi_agree(MPI_Comm comm, int status) {
    int me = 0, ranks = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    int mine = status ? me : ranks, first = ranks;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return hfft__mpi_fail_mpi(rc, "MPI_Allreduce (agreeing on a status)");
    if (first == ranks) {
        hfft__mpi_clear_error();
        return 0;
    }
    struct {
        int status;
        char message[MESSAGE_BYTES];
    } m;
    memset(&m, 0, sizeof m);
    if (me == first) {
        m.status = status;
        memcpy(m.message, last_message, sizeof m.message);
    }
    rc = MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm);
    if (rc != MPI_SUCCESS)
        return hfft__mpi_fail_mpi(rc, "MPI_Bcast (a failing rank's status)");
    m.message[MESSAGE_BYTES - 1] = '\0';
    if (ranks == 1)
        return hfft__mpi_fail(m.status, "%s", m.message);
    return hfft__mpi_fail(m.status, "rank %d: %.1000s", first, m.message);
}
