/* tests/fuzz/replay.c — runs a fuzz target on files, without libFuzzer.
 *
 * Usage: replay_<parser> FILE|DIR...   (a directory: every regular file in
 * it, by name). Each file is read whole and handed to the target once; the
 * test fails when the target crashes or aborts (an invariant it checks), or
 * when no input was found at all (a misspelt corpus path must not pass). */
#include "tests/fuzz/fuzz.h"
#include "util/fileio.h"

#include <dirent.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
    char *text;
    size_t len;
    if (pg_file_read(&text, &len, path) < 0) {
        fprintf(stderr, "replay: %s\n", pg_error_last());
        return -1;
    }
    /* An exact-size copy: the target may not rely on pg_file_read's NUL,
     * and ASan sees a read past the end. */
    uint8_t *data = malloc(len ? len : 1);
    if (!data) {
        free(text);
        return -1;
    }
    memcpy(data, text, len);
    free(text);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) < 0)
                return 2;
            n++;
            continue;
        }
        struct dirent **names;
        int k = scandir(argv[i], &names, NULL, alphasort);
        if (k < 0) {
            fprintf(stderr, "replay: cannot list %s\n", argv[i]);
            return 2;
        }
        int rc = 0;
        for (int j = 0; j < k; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[j]->d_name);
            if (rc == 0 && names[j]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path) < 0)
                    rc = 2;
                n++;
            }
            free(names[j]);
        }
        free(names);
        if (rc)
            return rc;
    }
    if (n == 0) {
        fprintf(stderr, "replay: no input files\n");
        return 2;
    }
    printf("replayed %d inputs\n", n);
    return 0;
}
