/* The file-system cost of a commit's publication, without the store's own work: a commit's frame (533 bytes,
 * one BenchRecord) written at the log's end and synced with fdatasync(2), then a 64-byte slot written without
 * a sync, either at the file's start (store format 3, today's: every next sync writes that page as well) or right
 * after the frame (a tail slot, in the page the next commit writes: what a later format may do). Blocks of single
 * commits alternate
 * between the two files so that the machine's drift falls on both; prints the mean, median, 10th and 90th
 * percentile of each pattern's commits in microseconds.
 *
 *   cc -O2 Benchmarks/store/sync-pattern.c -o /tmp/sync-pattern
 *   /tmp/sync-pattern DIRECTORY [COMMITS_PER_BLOCK] [BLOCKS]     default 200 and 20; DIRECTORY on the disk to measure
 *
 * Each file has 32 MiB written ahead with zeros and synced first, as the store writes zeros ahead of its log.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIRECTORY [COMMITS_PER_BLOCK] [BLOCKS]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 200, blocks = argc > 3 ? atoi(argv[3]) : 20;
    if (n <= 0 || blocks <= 0) return 2;
    char names[2][4096];
    int fd[2];
    static char zeros[65536];
    for (int p = 0; p < 2; p++) {
        snprintf(names[p], sizeof names[p], "%s/sync-pattern-%d.dat", argv[1], p);
        fd[p] = open(names[p], O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd[p] < 0) { perror(names[p]); return 1; }
        for (int i = 0; i < 512; i++) {
            if (write(fd[p], zeros, sizeof zeros) != (ssize_t)sizeof zeros) { perror("write"); return 1; }
        }
        if (fsync(fd[p]) != 0) { perror("fsync"); return 1; }
    }
    char frame[533], slot[64];
    memset(frame, 'f', sizeof frame);
    memset(slot, 's', sizeof slot);
    off_t end[2] = {256, 256};
    long sequence = 0;
    double *times[2];
    int count[2] = {0, 0};
    for (int p = 0; p < 2; p++) {
        times[p] = malloc(sizeof(double) * (size_t)n * (size_t)blocks);
        if (!times[p]) { perror("malloc"); unlink(names[0]); unlink(names[1]); return 1; }
    }
    for (int b = 0; b < blocks; b++) {
        for (int q = 0; q < 2; q++) {
            int p = (b + q) % 2;
            for (int i = 0; i < n; i++) {
                double start = now_us();
                int ok = pwrite(fd[p], frame, sizeof frame, end[p]) == (ssize_t)sizeof frame && fdatasync(fd[p]) == 0;
                end[p] += sizeof frame;
                off_t at = p == 0 ? 64 + 64 * (sequence++ & 1) : end[p];
                ok = ok && pwrite(fd[p], slot, sizeof slot, at) == (ssize_t)sizeof slot;
                if (!ok) { perror("commit"); unlink(names[0]); unlink(names[1]); return 1; }
                times[p][count[p]++] = now_us() - start;
            }
        }
    }
    const char *labels[2] = {"slot at the file's start (format 3)", "tail slot after the frame"};
    for (int p = 0; p < 2; p++) {
        qsort(times[p], (size_t)count[p], sizeof(double), compare);
        double sum = 0;
        for (int i = 0; i < count[p]; i++) sum += times[p][i];
        printf("%-38s commits %d  mean %.1f  median %.1f  p10 %.1f  p90 %.1f us\n", labels[p], count[p], sum / count[p],
               times[p][count[p] / 2], times[p][count[p] / 10], times[p][count[p] * 9 / 10]);
        unlink(names[p]);
    }
    return 0;
}
