/* libplist (Debian libplist-dev) as a peer: binary and XML, read and write (Benchmarks/peers/run.sh).
 *
 *   libplist-driver <operation> <input> <repeats> [<inner>]
 *
 * Reads <input> whole, runs the operation once untimed (a refused input fails here), then takes <repeats>
 * samples of <inner> (1) operations each on CLOCK_MONOTONIC and prints the median seconds per operation and
 * the peak resident memory (VmHWM), in the line every driver prints. What an operation makes is freed inside
 * its timing. Exit status 1: the input was refused; 3: the peer does not do this operation; 64: usage. */
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *input;
static uint32_t input_length;
static plist_t tree; /* the decoded input, for the writes */
static int binary;   /* which format the operation reads or writes */

static long peak_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atol(line + 6);
    if (status) fclose(status);
    return kb;
}

static plist_t read_input(void) {
    plist_t plist = NULL;
    if (binary) plist_from_bin(input, input_length, &plist);
    else plist_from_xml(input, input_length, &plist);
    return plist;
}

static int read_once(void) {
    plist_t plist = read_input();
    if (!plist) return 0;
    plist_free(plist);
    return 1;
}

static int write_once(void) {
    char *out = NULL;
    uint32_t length = 0;
    if (binary) plist_to_bin(tree, &out, &length);
    else plist_to_xml(tree, &out, &length);
    if (!out || length == 0) return 0;
    if (binary) plist_to_bin_free(out);
    else plist_to_xml_free(out);
    return 1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "Usage: %s <operation> <input> <repeats> [<inner>]\n", argv[0]);
        return 64;
    }
    const char *op = argv[1];
    int repeats = atoi(argv[3]), inner = argc == 5 ? atoi(argv[4]) : 1;
    int reading = strcmp(op, "binary-read") == 0 || strcmp(op, "xml-read") == 0;
    int writing = strcmp(op, "binary-write") == 0 || strcmp(op, "xml-write") == 0;
    if (!reading && !writing) {
        fprintf(stderr, "plist codec only\n");
        return 3;
    }
    binary = strncmp(op, "binary", 6) == 0;
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 1; }
    fseek(file, 0, SEEK_END);
    input_length = (uint32_t)ftell(file);
    rewind(file);
    input = malloc(input_length);
    if (fread(input, 1, input_length, file) != input_length) { perror(argv[2]); return 1; }
    fclose(file);

    int (*body)(void) = reading ? read_once : write_once;
    if (writing && !(tree = read_input())) {
        fprintf(stderr, "plist_from_%s returned no plist\n", binary ? "bin" : "xml");
        return 1;
    }
    if (!body()) {
        fprintf(stderr, reading ? "plist_from_%s returned no plist\n" : "plist_to_%s returned no bytes\n",
                binary ? "bin" : "xml");
        return 1;
    }
    double *samples = calloc(repeats, sizeof *samples);
    for (int r = 0; r < repeats; r++) {
        double start = now();
        for (int i = 0; i < inner; i++) body();
        samples[r] = (now() - start) / inner;
    }
    qsort(samples, repeats, sizeof *samples, compare);
    double median = repeats % 2 ? samples[repeats / 2] : (samples[repeats / 2 - 1] + samples[repeats / 2]) / 2;
    printf("PEER op=%s seconds=%.9f peak_kb=%ld repeats=%d inner=%d input_bytes=%u\n", op, median, peak_kb(),
           repeats, inner, input_length);
    return 0;
}
