/*
 * test_use_info.c -- wf_system_info_get and wf_cache_clear, what `weft
 * info` and `weft cache clear` print (tests/cli/run.sh checks the command's
 * text): the cache directory from $WF_CACHE_DIR and its weft entries only,
 * the cache switched off, and NVRTC found exactly when compiling with it
 * works.
 */
#include "harness.h"
#include "runtime/nvrtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The tests set WF_CACHE_DIR and put back what it was. */
static char *saved_cache_dir(void) {
    const char *v = getenv("WF_CACHE_DIR");
    return v ? strdup(v) : NULL;
}

static void restore_cache_dir(char *old) {
    if (old)
        setenv("WF_CACHE_DIR", old, 1);
    else
        unsetenv("WF_CACHE_DIR");
    free(old);
}

TEST(use_info_counts_and_clears_only_weft_entries) {
    char dir[] = "/tmp/weft-info-XXXXXX", path[600];
    CHECK(mkdtemp(dir) != NULL);
    put_file(dir, "weft-0123456789abcdef.bin", "12345");
    put_file(dir, "weft-0123456789abcdef.bin.Zz9Yy8", "12");
    put_file(dir, "weft-0123456789abcdeg.bin", "not hex");
    put_file(dir, "README", "mine");
    char *old = saved_cache_dir();
    setenv("WF_CACHE_DIR", dir, 1);
    wf_system_info s;
    CHECK_EQ_I64(wf_system_info_get(&s), WF_OK);
    CHECK(s.cache_enabled);
    CHECK_STR(s.cache_dir, dir);
    CHECK_EQ_I64(s.cache_entries, 2);
    CHECK_EQ_I64(s.cache_bytes, 7);
    int64_t n = -1, bytes = -1;
    CHECK_EQ_I64(wf_cache_clear(&n, &bytes), WF_OK);
    CHECK_EQ_I64(n, 2);
    CHECK_EQ_I64(bytes, 7);
    CHECK_EQ_I64(wf_cache_clear(NULL, NULL), WF_OK);
    CHECK_EQ_I64(wf_system_info_get(&s), WF_OK);
    CHECK_EQ_I64(s.cache_entries, 0);
    snprintf(path, sizeof path, "%s/README", dir);
    CHECK(access(path, F_OK) == 0);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/weft-0123456789abcdeg.bin", dir);
    CHECK(unlink(path) == 0);
    CHECK(rmdir(dir) == 0);
    restore_cache_dir(old);
}

TEST(use_info_cache_off_and_null_argument) {
    char *old = saved_cache_dir();
    setenv("WF_CACHE_DIR", "", 1);
    wf_system_info s;
    CHECK_EQ_I64(wf_system_info_get(&s), WF_OK);
    CHECK(!s.cache_enabled);
    CHECK_STR(s.cache_dir, "");
    CHECK_EQ_I64(s.cache_entries, 0);
    int64_t n = -1;
    CHECK_EQ_I64(wf_cache_clear(&n, NULL), WF_OK);
    CHECK_EQ_I64(n, 0);
    CHECK_EQ_I64(wf_system_info_get(NULL), WF_ERR_ARG);
    restore_cache_dir(old);
}

/* NVRTC is reported found exactly when it loads, with the file it comes
   from; the device only ever with a driver. */
TEST(use_info_nvrtc_and_driver_agree_with_the_runtime) {
    wf_system_info s;
    struct stat st;
    CHECK_EQ_I64(wf_system_info_get(&s), WF_OK);
    CHECK_EQ_I64(s.nvrtc_found, rt_nvrtc_available());
    if (s.nvrtc_found) {
        CHECK(stat(s.nvrtc_path, &st) == 0);
        CHECK(s.nvrtc_major >= 11);
        CHECK_STR(s.nvrtc_error, "");
    } else {
        CHECK_HAS(s.nvrtc_error, "could not load libnvrtc");
    }
    CHECK(!s.device_found || s.driver_found);
    CHECK_EQ_I64(s.device_found, wf_cuda_available());
    if (!s.driver_found)
        CHECK_HAS(s.driver_error, "could not load libcuda");
    if (s.device_found)
        CHECK(s.device_sm >= 30 && s.device_name[0] != '\0');
}
