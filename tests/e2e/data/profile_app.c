/* A tiny program for the `roofcast profile` end-to-end tests: two named functions with different costs
 * (found by perf and cachegrind by name), an optional exit status or signal, and, when
 * ROOFCAST_MARKER_OUTPUT is set, a marker file as the marker library writes it (docs/formats-marker.md:
 * marker.<rank>.<pid>.json with declared flops and bytes per region), so the tests do not depend on the
 * library. Usage: profile_app [N] [exit STATUS | kill | mismatch | rank-extra] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) double heavy_stream(const double* a, long n, int reps) {
    double s = 0;
    for (int r = 0; r < reps; ++r)
        for (long i = 0; i < n; ++i)
            s += a[i] * 1.000001;
    return s;
}

__attribute__((noinline)) double light_scalar(long n) {
    double s = 0;
    for (long i = 0; i < n; ++i)
        s += (double)i * 0.5;
    return s;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    const char* mode = argc > 2 ? argv[2] : "";
    /* The rank as the marker library reads it: Open MPI's variables, else Slurm's (srun). */
    const char* rank_env = getenv("OMPI_COMM_WORLD_RANK");
    const char* size_env = getenv("OMPI_COMM_WORLD_SIZE");
    if (!rank_env) {
        rank_env = getenv("SLURM_PROCID");
        size_env = getenv("SLURM_NTASKS");
    }
    int rank = rank_env ? atoi(rank_env) : 0;
    int ranks = size_env ? atoi(size_env) : 1;
    if (strcmp(mode, "exit") == 0)
        return argc > 3 ? atoi(argv[3]) : 3;
    if (strcmp(mode, "kill") == 0)
        raise(SIGKILL);
    long local = n / ranks;
    double* a = malloc(sizeof(double) * (size_t)local);
    for (long i = 0; i < local; ++i)
        a[i] = (double)i;
    double s = heavy_stream(a, local, 20) + light_scalar(local);
    free(a);
    const char* out = getenv("ROOFCAST_MARKER_OUTPUT");
    if (out) {
        char path[4096];
        snprintf(path, sizeof path, "%s/marker.%d.%ld.json", out, rank, (long)getpid());
        FILE* f = fopen(path, "w");
        if (!f)
            return 2;
        fprintf(f,
                "{\"format\":\"roofcast-marker\",\"format_version\":1,\"rank\":%d,\"ranks\":%d,\"pid\":%ld,"
                "\"wall_seconds\":0.01,\"threads\":1,\"papi_events\":[],\"regions\":["
                "{\"path\":\"main\",\"name\":\"main\",\"calls\":1,\"seconds\":0.01,\"thread_seconds\":[0.01]},"
                "{\"path\":\"main->heavy\",\"name\":\"heavy\",\"calls\":1,\"seconds\":0.008,"
                "\"thread_seconds\":[0.008],\"flops\":%ld,\"bytes\":%ld}",
                rank, ranks, (long)getpid(), 20 * local, 20 * 8 * local);
        if (strcmp(mode, "rank-extra") == 0 && rank == 1)
            fprintf(f, ",{\"path\":\"main->extra\",\"name\":\"extra\",\"calls\":1,\"seconds\":0.001}");
        fprintf(f, "],\"warnings\":[%s]}\n",
                strcmp(mode, "mismatch") == 0 ? "\"region 'solve' ended but the innermost open region is 'dot'\""
                                              : "");
        fclose(f);
    }
    printf("%g\n", s);
    return 0;
}
