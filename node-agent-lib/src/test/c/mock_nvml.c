/*
 * A test double of libnvidia-ml.so.1: exports the NVML symbols the Java FFM binding uses, with the same
 * signatures and struct layouts as nvml.h, and returns a fixed inventory:
 *   8 x "NVIDIA A100-SXM4-40GB" (compute 8.0, 40960 MiB), UUIDs GPU-a1000000-0000-4000-8000-00000000000<i>,
 *   bus ids of a DGX A100, NUMA 0 for GPUs 0-3 and 1 for 4-7,
 *   MIG on for GPU 0 (3g.20gb as GI 1 in MIG slot 0, 1g.5gb as GI 5 in slot 2: slot 1 is empty, as NVML's
 *   indexes may be), MIG capable but off for the others,
 *   MIG partitioning with real state (see "MIG model" below): MIG mode, GPU and compute instances created and
 *   destroyed with the slice and placement rules of an A100 40GB; the MIG devices created are what the read calls
 *   (nvmlDeviceGetMigDeviceHandleByIndex, ...) report,
 *   NVLink: 4 direct links between GPUs (0,1) (2,3) (4,5) (6,7); other pairs over PCIe.
 *   Errors and events of GPU i: encoder use 2i %, decoder use 3i+1 %; remapped rows i correctable, 2 uncorrectable
 *   and a failed remapping on GPU 3 only; retired pages i%3 for single-bit errors, 1 for a double-bit error and pages
 *   pending on GPU 5 only; clock event reasons 0x1 (idle) on GPU 0, else 0x4 (software power cap), under both the
 *   current and the pre-535 name; violation time of perf policy p (0..5) (p+1) * (i+1) ms in ns.
 *   GPM (profiling): every full GPU but GPU 7 supports it; between two samples of GPU i (the second taken later)
 *   graphics 10i+5 %, SM 9i+4 %, occupancy 4i+2 %, any tensor 3i+1 %, DRAM 5i+3 %, FP64 i % (not supported on
 *   GPU 2), FP32 2i+1 %, FP16 i+2 %, PCIe TX 100(i+1) / RX 200(i+1) MiB/s, NVLink RX 300(i+1) / TX 400(i+1) MiB/s.
 *   The metrics array is NVML_GPM_METRIC_MAX = 98 entries long, as in CUDA 12.0's header.
 *   Processes: none until set (below). nvmlDeviceGetComputeRunningProcesses_v3 lists a full GPU's processes with
 *   their memory; nvmlDeviceGetProcessUtilization answers one sample per process, stamped later than every earlier
 *   answer (microseconds), only when lastSeenTimeStamp is older than it (else NVML_ERROR_NOT_FOUND). Both answer
 *   NVML_ERROR_INSUFFICIENT_SIZE with the count needed when the caller's buffer is too small (or NULL).
 *
 * Control (for tests; also settable by environment at nvmlInit_v2):
 *   mock_nvml_set_failures("fn:code,fn@gpu:code")  env MOCK_NVML_FAIL   make fn return code (for one GPU with @gpu)
 *   mock_nvml_inject_xid(gpu, xid)                 env MOCK_NVML_XID=gpu:xid   queue one XID critical-error event
 *   mock_nvml_lose_gpu(gpu) / mock_nvml_recover_gpu(gpu)   GPU answers NVML_ERROR_GPU_IS_LOST / answers again
 *   mock_nvml_init_count()                          how many nvmlInit_v2 are not yet shut down
 *   mock_nvml_mig_activation(gpu, code)             MIG mode changes of a GPU (-1: all) stay pending, nvmlDeviceSetMigMode's
 *                                                   activationStatus answering code (e.g. 16, RESET_REQUIRED); 0: they apply
 *   mock_nvml_reset_gpu(gpu)                        a GPU reset: the pending MIG mode applies, GPU instances are gone
 *   mock_nvml_mig_changes()                         calls so far that change MIG state (set mode, create, destroy)
 *   mock_nvml_gpm_samples_live()                    GPM samples allocated and not yet freed
 *   mock_nvml_set_processes("gpu:pid:memMiB:sm:mem:enc:dec,...")  env MOCK_NVML_PROCESSES   the compute processes;
 *                                                   memMiB "-": NVML_VALUE_NOT_AVAILABLE; null or "" clears
 *   mock_nvml_last_seen_timestamp()                 the lastSeenTimeStamp of the latest nvmlDeviceGetProcessUtilization
 *   mock_nvml_reset()                               back to the initial state (no failures, no events, none lost, no processes,
 *                                                   GPU 0's MIG devices as above, no MIG change counted)
 *
 * Written for this project from the public NVML API documentation; it is test code and is not shipped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25

#define NGPU 8
#define MIG_SLOTS 7
#define MAX_NVLINKS 12
#define XID_CRITICAL 0x8ULL
#define SUPPORTED_EVENTS 0xBULL /* single-bit ECC | double-bit ECC | XID critical */

typedef struct mock_device {
    int gpu;  /* parent GPU index */
    int mig;  /* -1 for a full GPU, else the MIG slot */
} mock_device;
typedef mock_device *nvmlDevice_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
    unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount,
        sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;
typedef union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal; int siVal; unsigned short usVal; } nvmlValue_t;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;
typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType, eventData;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
typedef struct mock_event_set { unsigned long long mask[NGPU]; } *nvmlEventSet_t;

static const unsigned int BUS[NGPU] = {0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD};
static const unsigned long long MIB = 1024ULL * 1024ULL;

static mock_device gpus[NGPU];
static mock_device migs[NGPU][MIG_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int init_count;
static int lost[NGPU];
static int lost_pending; /* a loss the event wait has not reported yet */
static unsigned long long energy_calls;

#define MAX_FAILURES 32
static struct { char fn[64]; int gpu; int code; } failures[MAX_FAILURES];
static int failure_count;

#define MAX_EVENTS 64
static struct { int gpu; unsigned long long xid; } events[MAX_EVENTS];
static int event_count;

/* ---- MIG model: an A100-SXM4-40GB, as its MIG user guide and `nvidia-smi mig -lgip` describe it ----
 * 8 memory slices, 7 compute slices. A GPU instance profile: its NVML_GPU_INSTANCE_PROFILE_* constant; its profile id
 * (what nvmlDeviceCreateGpuInstance and nvmlDeviceGetGpuInstances take, not the constant); name; compute slices;
 * memory slices it occupies; how many fit; memory MiB; SMs; copy/decoder/encoder/jpeg/ofa engines; the memory slices
 * an instance may start at (bit mask). A new GPU instance takes the highest free start allowed (so instances created
 * largest first always pack); none free, no compute slice left or the profile's count reached: INSUFFICIENT_RESOURCES.
 * One compute instance per GPU instance (what the partitioner makes); each gets the first free MIG device slot. */
#define MEM_SLICES 8
#define COMPUTE_SLICES 7
#define MAX_GI 7
#define GI_PROFILE_CONSTANTS 0x12 /* NVML_GPU_INSTANCE_PROFILE_COUNT of current headers */
#define CI_PROFILE_CONSTANTS 0x9  /* NVML_COMPUTE_INSTANCE_PROFILE_COUNT */
typedef struct {
    unsigned int constant, id; const char *name; unsigned int slices, mem_slices, instances;
    unsigned long long memMiB; unsigned int sms, copy, dec, enc, jpeg, ofa, starts;
} gi_profile;
static const gi_profile GI_PROFILES[] = {
    {0x0, 19, "1g.5gb",    1, 1, 7,  4864, 14, 1, 0, 0, 0, 0, 0x7F}, /* starts 0..6 */
    {0x1, 14, "2g.10gb",   2, 2, 3,  9856, 28, 2, 1, 0, 0, 0, 0x15}, /* 0, 2, 4 */
    {0x2,  9, "3g.20gb",   3, 4, 2, 20096, 42, 3, 2, 0, 0, 0, 0x11}, /* 0, 4 */
    {0x3,  5, "4g.20gb",   4, 4, 1, 20096, 56, 4, 2, 0, 0, 0, 0x01},
    {0x4,  0, "7g.40gb",   7, 8, 1, 40192, 98, 7, 5, 0, 1, 1, 0x01},
    {0x7, 20, "1g.5gb+me", 1, 1, 1,  4864, 14, 1, 1, 0, 1, 1, 0x7F}, /* REV1: media extensions */
    {0x9, 15, "1g.10gb",   1, 2, 4,  9856, 14, 1, 1, 0, 0, 0, 0x55}, /* REV2: 0, 2, 4, 6 */
};
#define N_GI_PROFILES ((int) (sizeof GI_PROFILES / sizeof GI_PROFILES[0]))
/* compute instance profiles by NVML_COMPUTE_INSTANCE_PROFILE_* constant: compute slices (0: none on this GPU) */
static const unsigned int CI_SLICES[CI_PROFILE_CONSTANTS] = {1, 2, 3, 4, 7, 0, 0, 0, 0};

typedef struct mock_gi_st {
    int gpu, used;
    unsigned int id;     /* GPU instance id */
    int prof;            /* index into GI_PROFILES */
    unsigned int start;  /* first memory slice */
    int has_ci;          /* its one compute instance (id 0) exists */
    unsigned int ci_constant;
    int slot;            /* the MIG device slot of its compute instance, -1 without */
} mock_gi;
typedef struct mock_ci_st { int gpu, gi; } mock_ci;
typedef mock_gi *nvmlGpuInstance_t;
typedef mock_ci *nvmlComputeInstance_t;

static mock_gi gis[NGPU][MAX_GI];
static mock_ci cis[NGPU][MAX_GI];
static int slot_gi[NGPU][MIG_SLOTS];           /* MIG device slot -> index into gis[gpu], -1 when empty */
static unsigned int mig_current[NGPU], mig_pending[NGPU];
static int mig_activation[NGPU];               /* nonzero: mode changes stay pending, answering this */
static int mig_changes;

static void add_instance(int g, int k, unsigned int id, int prof, unsigned int start, unsigned int ci, int slot) {
    gis[g][k].used = 1; gis[g][k].id = id; gis[g][k].prof = prof; gis[g][k].start = start;
    gis[g][k].has_ci = 1; gis[g][k].ci_constant = ci; gis[g][k].slot = slot;
    slot_gi[g][slot] = k;
}

static void clear_instances(int g) {
    for (int k = 0; k < MAX_GI; k++) { gis[g][k].used = 0; gis[g][k].has_ci = 0; gis[g][k].slot = -1; }
    for (int s = 0; s < MIG_SLOTS; s++) slot_gi[g][s] = -1;
}

/* The initial state (caller holds the lock or no other thread runs). */
static void mig_reset_state(void) {
    for (int g = 0; g < NGPU; g++) {
        mig_current[g] = mig_pending[g] = 0;
        mig_activation[g] = 0;
        for (int k = 0; k < MAX_GI; k++) { gis[g][k].gpu = g; cis[g][k].gpu = g; cis[g][k].gi = k; }
        clear_instances(g);
    }
    mig_changes = 0;
    /* GPU 0: 3g.20gb as GI 1 on memory slices 4-7 in MIG slot 0; 1g.5gb as GI 5 on slice 0 in slot 2 */
    mig_current[0] = mig_pending[0] = 1;
    add_instance(0, 0, 1, 2, 4, 2, 0);
    add_instance(0, 1, 5, 0, 0, 0, 2);
}

static const gi_profile *gi_prof(const mock_gi *gi) { return &GI_PROFILES[gi->prof]; }

static const gi_profile *profile_by_constant(unsigned int constant) {
    for (int i = 0; i < N_GI_PROFILES; i++) if (GI_PROFILES[i].constant == constant) return &GI_PROFILES[i];
    return NULL;
}

static int profile_index_by_id(unsigned int id) {
    for (int i = 0; i < N_GI_PROFILES; i++) if (GI_PROFILES[i].id == id) return i;
    return -1;
}

/* The compute slice counts a GPU instance offers on an A100: 1g {1}, 2g {1,2}, 3g {1,2,3}, 4g {1,2,4}, 7g {1,2,3,4,7}. */
static int ci_offered(unsigned int gi_slices, unsigned int ci_slices) {
    if (ci_slices == 0 || ci_slices > gi_slices) return 0;
    if (gi_slices == 4 && ci_slices == 3) return 0;
    return 1;
}

static void setup_devices(void) {
    for (int i = 0; i < NGPU; i++) {
        gpus[i].gpu = i; gpus[i].mig = -1;
        for (int s = 0; s < MIG_SLOTS; s++) { migs[i][s].gpu = i; migs[i][s].mig = s; }
    }
}

int mock_nvml_set_failures(const char *spec) {
    pthread_mutex_lock(&lock);
    failure_count = 0;
    if (spec != NULL) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", spec);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok && failure_count < MAX_FAILURES; tok = strtok_r(NULL, ",", &save)) {
            char *colon = strrchr(tok, ':');
            if (!colon) continue;
            *colon = 0;
            char *at = strchr(tok, '@');
            failures[failure_count].gpu = -1;
            if (at) { *at = 0; failures[failure_count].gpu = atoi(at + 1); }
            snprintf(failures[failure_count].fn, sizeof failures[0].fn, "%s", tok);
            failures[failure_count].code = atoi(colon + 1);
            failure_count++;
        }
    }
    pthread_mutex_unlock(&lock);
    return failure_count;
}

static int failure_for(const char *fn, int gpu) {
    if (failure_count == 0) return NVML_SUCCESS; /* the common case, without the lock */
    int code = NVML_SUCCESS;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < failure_count; i++) {
        if (strcmp(failures[i].fn, fn) == 0 && (failures[i].gpu < 0 || failures[i].gpu == gpu)) { code = failures[i].code; break; }
    }
    pthread_mutex_unlock(&lock);
    return code;
}

void mock_nvml_inject_xid(int gpu, unsigned long long xid) {
    pthread_mutex_lock(&lock);
    if (event_count < MAX_EVENTS) { events[event_count].gpu = gpu; events[event_count].xid = xid; event_count++; }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

void mock_nvml_lose_gpu(int gpu) {
    pthread_mutex_lock(&lock);
    if (gpu >= 0 && gpu < NGPU) { lost[gpu] = 1; lost_pending = 1; }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

void mock_nvml_recover_gpu(int gpu) {
    pthread_mutex_lock(&lock);
    if (gpu >= 0 && gpu < NGPU) lost[gpu] = 0;
    pthread_mutex_unlock(&lock);
}

int mock_nvml_init_count(void) { return init_count; }

void mock_nvml_mig_activation(int gpu, int code) {
    pthread_mutex_lock(&lock);
    for (int g = 0; g < NGPU; g++) if (gpu < 0 || gpu == g) mig_activation[g] = code;
    pthread_mutex_unlock(&lock);
}

void mock_nvml_reset_gpu(int gpu) {
    pthread_mutex_lock(&lock);
    if (gpu >= 0 && gpu < NGPU) { mig_current[gpu] = mig_pending[gpu]; clear_instances(gpu); }
    pthread_mutex_unlock(&lock);
}

int mock_nvml_mig_changes(void) { return __atomic_load_n(&mig_changes, __ATOMIC_RELAXED); }

int mock_nvml_set_processes(const char *spec);

void mock_nvml_reset(void) {
    mock_nvml_set_failures(NULL);
    mock_nvml_set_processes(NULL);
    pthread_mutex_lock(&lock);
    event_count = 0; lost_pending = 0; energy_calls = 0;
    memset(lost, 0, sizeof lost);
    setup_devices();
    mig_reset_state();
    pthread_mutex_unlock(&lock);
}

/* ---- argument checks shared by every device call ---- */
#define FAIL(fn, gpu) do { int _c = failure_for(fn, gpu); if (_c) return _c; } while (0)
#define NEED_INIT() do { if (init_count <= 0) return NVML_ERROR_UNINITIALIZED; } while (0)

static int device_ok(nvmlDevice_t d) {
    if (d >= &gpus[0] && d < &gpus[NGPU]) return 1;
    if (d >= &migs[0][0] && d < &migs[NGPU - 1][MIG_SLOTS]) return 1;
    return 0;
}
#define DEVICE(fn, d) do { \
        NEED_INIT(); \
        if (!device_ok(d)) { return NVML_ERROR_INVALID_ARGUMENT; } \
        if (lost[(d)->gpu]) { return NVML_ERROR_GPU_IS_LOST; } \
        FAIL(fn, (d)->gpu); \
    } while (0)
#define OUT(p) do { if ((p) == NULL) return NVML_ERROR_INVALID_ARGUMENT; } while (0)

/* The GPU instance behind a MIG device handle; NULL for a full GPU or a slot emptied since. */
static mock_gi *mig_instance(nvmlDevice_t d) {
    if (d->mig < 0) return NULL;
    int k = slot_gi[d->gpu][d->mig];
    return k < 0 ? NULL : &gis[d->gpu][k];
}
#define MIG_DEVICE(gi, d) mock_gi *gi = mig_instance(d); do { if (gi == NULL) return NVML_ERROR_INVALID_ARGUMENT; } while (0)

static int gi_ok(nvmlGpuInstance_t gi) {
    return gi >= &gis[0][0] && gi < &gis[NGPU - 1][MAX_GI] && gi->used;
}
static int ci_ok(nvmlComputeInstance_t ci) {
    return ci >= &cis[0][0] && ci < &cis[NGPU - 1][MAX_GI] && gis[ci->gpu][ci->gi].used && gis[ci->gpu][ci->gi].has_ci;
}
#define GPU_INSTANCE(fn, gi) do { \
        NEED_INIT(); \
        if (!gi_ok(gi)) { return NVML_ERROR_INVALID_ARGUMENT; } \
        if (lost[(gi)->gpu]) { return NVML_ERROR_GPU_IS_LOST; } \
        FAIL(fn, (gi)->gpu); \
    } while (0)
#define MIG_CHANGE() __atomic_add_fetch(&mig_changes, 1, __ATOMIC_RELAXED)

static nvmlReturn_t copy_string(char *dst, unsigned int len, const char *src) {
    if (dst == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(src) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, strlen(src) + 1);
    return NVML_SUCCESS;
}

/* ---- library ---- */
const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
        case 0: return "Success";
        case 1: return "Uninitialized";
        case 2: return "Invalid Argument";
        case 3: return "Not Supported";
        case 4: return "Insufficient Permissions";
        case 6: return "Not Found";
        case 7: return "Insufficient Size";
        case 9: return "Driver Not Loaded";
        case 10: return "Timeout";
        case 12: return "NVML Shared Library Not Found";
        case 13: return "Function Not Found";
        case 15: return "GPU is lost";
        case 16: return "GPU requires reset";
        case 18: return "RM has detected an NVML/RM version mismatch.";
        case 19: return "In use by another client";
        case 23: return "Insufficient Resources";
        case 25: return "Argument version mismatch";
        case 999: return "Unknown Error";
        default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlInit_v2(void) {
    static int parsed;
    if (!parsed) {
        parsed = 1;
        pthread_mutex_lock(&lock);
        setup_devices();
        mig_reset_state();
        pthread_mutex_unlock(&lock);
        const char *f = getenv("MOCK_NVML_FAIL");
        if (f) mock_nvml_set_failures(f);
        const char *ps = getenv("MOCK_NVML_PROCESSES");
        if (ps) mock_nvml_set_processes(ps);
        const char *x = getenv("MOCK_NVML_XID");
        if (x) { int g = 0; unsigned long long xid = 0; if (sscanf(x, "%d:%llu", &g, &xid) == 2) mock_nvml_inject_xid(g, xid); }
    }
    FAIL("nvmlInit_v2", -1);
    pthread_mutex_lock(&lock);
    init_count++;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    NEED_INIT();
    FAIL("nvmlShutdown", -1);
    pthread_mutex_lock(&lock);
    init_count--;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    NEED_INIT(); FAIL("nvmlSystemGetDriverVersion", -1);
    return copy_string(version, length, "550.54.15");
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    NEED_INIT(); FAIL("nvmlSystemGetNVMLVersion", -1);
    return copy_string(version, length, "12.550.54.15");
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
    NEED_INIT(); FAIL("nvmlSystemGetCudaDriverVersion_v2", -1); OUT(v);
    *v = 12040;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    NEED_INIT(); FAIL("nvmlDeviceGetCount_v2", -1); OUT(count);
    *count = NGPU;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    NEED_INIT(); OUT(device);
    if (index >= NGPU) return NVML_ERROR_INVALID_ARGUMENT;
    FAIL("nvmlDeviceGetHandleByIndex_v2", (int) index);
    *device = &gpus[index];
    return NVML_SUCCESS;
}

/* ---- identity ---- */
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
    DEVICE("nvmlDeviceGetUUID", d);
    char buf[96];
    if (d->mig < 0) snprintf(buf, sizeof buf, "GPU-a1000000-0000-4000-8000-00000000000%d", d->gpu);
    else { MIG_DEVICE(gi, d); snprintf(buf, sizeof buf, "MIG-a1000000-0000-4000-8000-0000000000%d%u", d->gpu, gi->id); }
    return copy_string(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    DEVICE("nvmlDeviceGetName", d);
    char buf[96];
    if (d->mig < 0) snprintf(buf, sizeof buf, "NVIDIA A100-SXM4-40GB");
    else {
        MIG_DEVICE(gi, d);
        unsigned int c = CI_SLICES[gi->ci_constant];
        if (c == gi_prof(gi)->slices) snprintf(buf, sizeof buf, "NVIDIA A100-SXM4-40GB MIG %s", gi_prof(gi)->name);
        else snprintf(buf, sizeof buf, "NVIDIA A100-SXM4-40GB MIG %uc.%s", c, gi_prof(gi)->name);
    }
    return copy_string(name, length, buf);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    DEVICE("nvmlDeviceGetMemoryInfo", d); OUT(m);
    if (d->mig >= 0) { MIG_DEVICE(gi, d); m->total = gi_prof(gi)->memMiB * MIB; m->used = 13 * MIB; m->free = m->total - m->used; return NVML_SUCCESS; }
    m->total = 40960ULL * MIB;
    m->used = 1024ULL * (d->gpu + 1) * MIB;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    DEVICE("nvmlDeviceGetMemoryInfo_v2", d); OUT(m);
    if (m->version != ((unsigned int) sizeof(nvmlMemory_v2_t) | (2u << 24))) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (d->mig >= 0 && mig_instance(d) == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    m->total = (d->mig >= 0 ? gi_prof(mig_instance(d))->memMiB : 40960ULL) * MIB;
    m->reserved = 512ULL * MIB;
    m->used = (d->mig >= 0 ? 13ULL : 1024ULL * (d->gpu + 1)) * MIB + m->reserved; /* used includes reserved */
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
    DEVICE("nvmlDeviceGetPciInfo_v3", d); OUT(p);
    memset(p, 0, sizeof *p);
    p->domain = 0; p->bus = BUS[d->gpu]; p->device = 0;
    p->pciDeviceId = 0x20B010DE; p->pciSubSystemId = 0x134F10DE;
    snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", BUS[d->gpu]);
    snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", BUS[d->gpu]);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor) {
    DEVICE("nvmlDeviceGetMinorNumber", d); OUT(minor);
    *minor = (unsigned int) d->gpu;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor) {
    DEVICE("nvmlDeviceGetCudaComputeCapability", d); OUT(major); OUT(minor);
    *major = 8; *minor = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned int *node) {
    DEVICE("nvmlDeviceGetNumaNodeId", d); OUT(node);
    *node = d->gpu < 4 ? 0 : 1;
    return NVML_SUCCESS;
}

/* ---- MIG ---- */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    DEVICE("nvmlDeviceGetMigMode", d); OUT(current); OUT(pending);
    if (d->mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    *current = mig_current[d->gpu];
    *pending = mig_pending[d->gpu];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) {
    DEVICE("nvmlDeviceGetMaxMigDeviceCount", d); OUT(count);
    *count = MIG_SLOTS;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *mig) {
    DEVICE("nvmlDeviceGetMigDeviceHandleByIndex", d); OUT(mig);
    if (d->mig >= 0 || index >= MIG_SLOTS) return NVML_ERROR_INVALID_ARGUMENT;
    if (!mig_current[d->gpu] || slot_gi[d->gpu][index] < 0) return NVML_ERROR_NOT_FOUND;
    *mig = &migs[d->gpu][index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEVICE("nvmlDeviceGetGpuInstanceId", d); OUT(id);
    if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    MIG_DEVICE(gi, d);
    *id = gi->id;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEVICE("nvmlDeviceGetComputeInstanceId", d); OUT(id);
    if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    MIG_DEVICE(gi, d);
    *id = 0; /* one compute instance per GPU instance */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a) {
    DEVICE("nvmlDeviceGetAttributes_v2", d); OUT(a);
    memset(a, 0, sizeof *a);
    if (d->mig < 0) { a->multiprocessorCount = 108; a->memorySizeMB = 40960; return NVML_SUCCESS; }
    MIG_DEVICE(gi, d);
    const gi_profile *p = gi_prof(gi);
    unsigned int c = CI_SLICES[gi->ci_constant];
    a->multiprocessorCount = p->sms / p->slices * c;
    a->gpuInstanceSliceCount = p->slices;
    a->computeInstanceSliceCount = c;
    a->sharedCopyEngineCount = p->copy;
    a->sharedDecoderCount = p->dec;
    a->sharedEncoderCount = p->enc;
    a->sharedJpegCount = p->jpeg;
    a->sharedOfaCount = p->ofa;
    a->memorySizeMB = p->memMiB;
    return NVML_SUCCESS;
}

/* ---- MIG partitioning ---- */
typedef struct {
    unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount, decoderCount,
        encoderCount, jpegCount, ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;
typedef struct {
    unsigned int version, id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
        decoderCount, encoderCount, jpegCount, ofaCount;
    unsigned long long memorySizeMB;
    char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
typedef struct {
    unsigned int id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount,
        sharedEncoderCount, sharedJpegCount, sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;
typedef struct {
    unsigned int version, id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount,
        sharedEncoderCount, sharedJpegCount, sharedOfaCount;
    char name[96];
} nvmlComputeInstanceProfileInfo_v2_t;
typedef struct { unsigned int start, size; } nvmlGpuInstancePlacement_t;
typedef struct {
    nvmlDevice_t device;
    unsigned int id, profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;
#define STRUCT_VERSION(type, v) ((unsigned int) sizeof(type) | ((v) << 24))

nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t d, unsigned int mode, nvmlReturn_t *activation) {
    MIG_CHANGE();
    DEVICE("nvmlDeviceSetMigMode", d); OUT(activation);
    if (d->mig >= 0 || mode > 1) return NVML_ERROR_INVALID_ARGUMENT;
    int g = d->gpu;
    pthread_mutex_lock(&lock);
    int instances = 0;
    for (int k = 0; k < MAX_GI; k++) instances += gis[g][k].used;
    mig_pending[g] = mode;
    if (mode == mig_current[g]) *activation = NVML_SUCCESS;
    else if (mode == 0 && instances > 0) *activation = NVML_ERROR_IN_USE; /* this mock: instances must go first */
    else if (mig_activation[g]) *activation = mig_activation[g];        /* pending until mock_nvml_reset_gpu */
    else { mig_current[g] = mode; *activation = NVML_SUCCESS; }
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

static void fill_gi_profile(const gi_profile *p, unsigned int *id, unsigned int *p2p, unsigned int *slices,
                            unsigned int *count, unsigned int *sms, unsigned int *ce, unsigned int *dec,
                            unsigned int *enc, unsigned int *jpeg, unsigned int *ofa, unsigned long long *mem) {
    *id = p->id; *p2p = 0; *slices = p->slices; *count = p->instances; *sms = p->sms;
    *ce = p->copy; *dec = p->dec; *enc = p->enc; *jpeg = p->jpeg; *ofa = p->ofa; *mem = p->memMiB;
}

/* The unversioned call answers with MIG on or off (mig-parted reads profiles before enabling MIG). */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned int profile, nvmlGpuInstanceProfileInfo_t *i) {
    DEVICE("nvmlDeviceGetGpuInstanceProfileInfo", d); OUT(i);
    if (d->mig >= 0 || profile >= GI_PROFILE_CONSTANTS) return NVML_ERROR_INVALID_ARGUMENT;
    const gi_profile *p = profile_by_constant(profile);
    if (p == NULL) return NVML_ERROR_NOT_SUPPORTED;
    fill_gi_profile(p, &i->id, &i->isP2pSupported, &i->sliceCount, &i->instanceCount, &i->multiprocessorCount,
                    &i->copyEngineCount, &i->decoderCount, &i->encoderCount, &i->jpegCount, &i->ofaCount,
                    &i->memorySizeMB);
    return NVML_SUCCESS;
}

/* The versioned one answers NOT_SUPPORTED with MIG off, as its documentation allows. */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t d, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *i) {
    DEVICE("nvmlDeviceGetGpuInstanceProfileInfoV", d); OUT(i);
    if (i->version != STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v2_t, 2u)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (d->mig >= 0 || profile >= GI_PROFILE_CONSTANTS) return NVML_ERROR_INVALID_ARGUMENT;
    if (!mig_current[d->gpu]) return NVML_ERROR_NOT_SUPPORTED;
    const gi_profile *p = profile_by_constant(profile);
    if (p == NULL) return NVML_ERROR_NOT_SUPPORTED;
    fill_gi_profile(p, &i->id, &i->isP2pSupported, &i->sliceCount, &i->instanceCount, &i->multiprocessorCount,
                    &i->copyEngineCount, &i->decoderCount, &i->encoderCount, &i->jpegCount, &i->ofaCount,
                    &i->memorySizeMB);
    snprintf(i->name, sizeof i->name, "MIG %s", p->name);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t d, unsigned int profileId, nvmlGpuInstance_t *out, unsigned int *count) {
    DEVICE("nvmlDeviceGetGpuInstances", d); OUT(count);
    if (d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (!mig_current[d->gpu]) return NVML_ERROR_NOT_SUPPORTED;
    int prof = profile_index_by_id(profileId);
    if (prof < 0) return NVML_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&lock);
    unsigned int n = 0;
    for (int k = 0; k < MAX_GI; k++) {
        if (!gis[d->gpu][k].used || gis[d->gpu][k].prof != prof) continue;
        if (out == NULL || n >= GI_PROFILES[prof].instances) { pthread_mutex_unlock(&lock); return NVML_ERROR_INVALID_ARGUMENT; }
        out[n++] = &gis[d->gpu][k];
    }
    pthread_mutex_unlock(&lock);
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t d, unsigned int profileId, nvmlGpuInstance_t *out) {
    MIG_CHANGE();
    DEVICE("nvmlDeviceCreateGpuInstance", d); OUT(out);
    if (d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (!mig_current[d->gpu]) return NVML_ERROR_NOT_SUPPORTED;
    int prof = profile_index_by_id(profileId);
    if (prof < 0) return NVML_ERROR_INVALID_ARGUMENT;
    const gi_profile *p = &GI_PROFILES[prof];
    int g = d->gpu;
    pthread_mutex_lock(&lock);
    unsigned int same = 0, compute = 0, occupied = 0;
    int free_k = -1;
    for (int k = 0; k < MAX_GI; k++) {
        mock_gi *gi = &gis[g][k];
        if (!gi->used) { if (free_k < 0) free_k = k; continue; }
        if (gi->prof == prof) same++;
        compute += gi_prof(gi)->slices;
        occupied |= ((1u << gi_prof(gi)->mem_slices) - 1u) << gi->start;
    }
    int start = -1;
    unsigned int mask = (1u << p->mem_slices) - 1u;
    for (int st = MEM_SLICES - 1; st >= 0; st--) {
        if (((p->starts >> st) & 1u) && st + (int) p->mem_slices <= MEM_SLICES && !(occupied & (mask << st))) { start = st; break; }
    }
    if (free_k < 0 || same >= p->instances || compute + p->slices > COMPUTE_SLICES || start < 0) {
        pthread_mutex_unlock(&lock);
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    }
    unsigned int id = 1;
    for (int again = 1; again;) {
        again = 0;
        for (int k = 0; k < MAX_GI; k++) if (gis[g][k].used && gis[g][k].id == id) { id++; again = 1; }
    }
    mock_gi *gi = &gis[g][free_k];
    gi->used = 1; gi->id = id; gi->prof = prof; gi->start = (unsigned int) start; gi->has_ci = 0; gi->slot = -1;
    pthread_mutex_unlock(&lock);
    *out = gi;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gi) {
    MIG_CHANGE();
    GPU_INSTANCE("nvmlGpuInstanceDestroy", gi);
    pthread_mutex_lock(&lock);
    if (gi->has_ci) { pthread_mutex_unlock(&lock); return NVML_ERROR_IN_USE; }
    gi->used = 0;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info) {
    GPU_INSTANCE("nvmlGpuInstanceGetInfo", gi); OUT(info);
    info->device = &gpus[gi->gpu];
    info->id = gi->id;
    info->profileId = gi_prof(gi)->id;
    info->placement.start = gi->start;
    info->placement.size = gi_prof(gi)->mem_slices;
    return NVML_SUCCESS;
}

static nvmlReturn_t ci_profile(const mock_gi *gi, unsigned int profile, unsigned int eng, unsigned int *slices) {
    if (eng != 0 || profile >= CI_PROFILE_CONSTANTS) return NVML_ERROR_INVALID_ARGUMENT;
    if (!ci_offered(gi_prof(gi)->slices, CI_SLICES[profile])) return NVML_ERROR_NOT_SUPPORTED;
    *slices = CI_SLICES[profile];
    return NVML_SUCCESS;
}

#define FILL_CI_PROFILE(i, gi, profile, c) do { \
        const gi_profile *_p = gi_prof(gi); \
        (i)->id = (profile); (i)->sliceCount = (c); (i)->instanceCount = _p->slices / (c); \
        (i)->multiprocessorCount = _p->sms / _p->slices * (c); (i)->sharedCopyEngineCount = _p->copy; \
        (i)->sharedDecoderCount = _p->dec; (i)->sharedEncoderCount = _p->enc; (i)->sharedJpegCount = _p->jpeg; \
        (i)->sharedOfaCount = _p->ofa; \
    } while (0)

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gi, unsigned int profile, unsigned int eng,
                                                          nvmlComputeInstanceProfileInfo_t *i) {
    GPU_INSTANCE("nvmlGpuInstanceGetComputeInstanceProfileInfo", gi); OUT(i);
    unsigned int c = 0;
    nvmlReturn_t r = ci_profile(gi, profile, eng, &c);
    if (r != NVML_SUCCESS) return r;
    FILL_CI_PROFILE(i, gi, profile, c);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gi, unsigned int profile, unsigned int eng,
                                                           nvmlComputeInstanceProfileInfo_v2_t *i) {
    GPU_INSTANCE("nvmlGpuInstanceGetComputeInstanceProfileInfoV", gi); OUT(i);
    if (i->version != STRUCT_VERSION(nvmlComputeInstanceProfileInfo_v2_t, 2u)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned int c = 0;
    nvmlReturn_t r = ci_profile(gi, profile, eng, &c);
    if (r != NVML_SUCCESS) return r;
    FILL_CI_PROFILE(i, gi, profile, c);
    if (c == gi_prof(gi)->slices) snprintf(i->name, sizeof i->name, "MIG %s", gi_prof(gi)->name);
    else snprintf(i->name, sizeof i->name, "MIG %uc.%s", c, gi_prof(gi)->name);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gi, unsigned int profileId, nvmlComputeInstance_t *out,
                                                unsigned int *count) {
    GPU_INSTANCE("nvmlGpuInstanceGetComputeInstances", gi); OUT(count);
    unsigned int c = 0;
    nvmlReturn_t r = ci_profile(gi, profileId, 0, &c);
    if (r != NVML_SUCCESS) return r;
    unsigned int n = 0;
    if (gi->has_ci && gi->ci_constant == profileId) {
        if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
        out[n++] = &cis[gi->gpu][gi - &gis[gi->gpu][0]];
    }
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gi, unsigned int profileId, nvmlComputeInstance_t *out) {
    MIG_CHANGE();
    GPU_INSTANCE("nvmlGpuInstanceCreateComputeInstance", gi); OUT(out);
    unsigned int c = 0;
    nvmlReturn_t r = ci_profile(gi, profileId, 0, &c);
    if (r != NVML_SUCCESS) return r;
    int g = gi->gpu;
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int s = 0; s < MIG_SLOTS && slot < 0; s++) if (slot_gi[g][s] < 0) slot = s;
    if (gi->has_ci || slot < 0) { pthread_mutex_unlock(&lock); return NVML_ERROR_INSUFFICIENT_RESOURCES; }
    int k = (int) (gi - &gis[g][0]);
    gi->has_ci = 1; gi->ci_constant = profileId; gi->slot = slot;
    slot_gi[g][slot] = k;
    pthread_mutex_unlock(&lock);
    *out = &cis[g][k];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t ci) {
    MIG_CHANGE();
    NEED_INIT();
    if (!ci_ok(ci)) return NVML_ERROR_INVALID_ARGUMENT;
    if (lost[ci->gpu]) return NVML_ERROR_GPU_IS_LOST;
    FAIL("nvmlComputeInstanceDestroy", ci->gpu);
    pthread_mutex_lock(&lock);
    mock_gi *gi = &gis[ci->gpu][ci->gi];
    if (gi->slot >= 0) slot_gi[ci->gpu][gi->slot] = -1;
    gi->has_ci = 0; gi->slot = -1;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

/* ---- topology ---- */
static int peer_of(int gpu) { return gpu ^ 1; }

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level) {
    DEVICE("nvmlDeviceGetTopologyCommonAncestor", a); DEVICE("nvmlDeviceGetTopologyCommonAncestor", b); OUT(level);
    if (a->gpu == b->gpu) *level = 0;                      /* NVML_TOPOLOGY_INTERNAL */
    else if (a->gpu / 2 == b->gpu / 2) *level = 10;        /* NVML_TOPOLOGY_SINGLE */
    else if (a->gpu / 4 == b->gpu / 4) *level = 40;        /* NVML_TOPOLOGY_NODE */
    else *level = 50;                                      /* NVML_TOPOLOGY_SYSTEM */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int caps, int *status) {
    DEVICE("nvmlDeviceGetP2PStatus", a); DEVICE("nvmlDeviceGetP2PStatus", b); OUT(status);
    if (caps == 2 /* NVML_P2P_CAPS_INDEX_NVLINK */) *status = peer_of(a->gpu) == b->gpu ? 0 : 5;
    else *status = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active) {
    DEVICE("nvmlDeviceGetNvLinkState", d); OUT(active);
    if (link >= MAX_NVLINKS) return NVML_ERROR_INVALID_ARGUMENT;
    *active = link < 4 ? 1 : 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *p) {
    DEVICE("nvmlDeviceGetNvLinkRemotePciInfo_v2", d); OUT(p);
    if (link >= MAX_NVLINKS) return NVML_ERROR_INVALID_ARGUMENT;
    if (link >= 4) return NVML_ERROR_NOT_SUPPORTED;
    return nvmlDeviceGetPciInfo_v3(&gpus[peer_of(d->gpu)], p);
}

/* ---- metrics ---- */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
    DEVICE("nvmlDeviceGetUtilizationRates", d); OUT(u);
    u->gpu = 10u * d->gpu + 5u; u->memory = 5u * d->gpu + 3u;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t) {
    DEVICE("nvmlDeviceGetTemperature", d); OUT(t);
    if (sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
    *t = 40u + (unsigned int) d->gpu;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
    DEVICE("nvmlDeviceGetPowerUsage", d); OUT(mw);
    *mw = 100000u + 1500u * (unsigned int) d->gpu;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj) {
    DEVICE("nvmlDeviceGetTotalEnergyConsumption", d); OUT(mj);
    unsigned long long n = __atomic_add_fetch(&energy_calls, 1, __ATOMIC_RELAXED);
    *mj = 1000000ULL * (d->gpu + 1) + 1000ULL * n; /* a counter that only grows */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz) {
    DEVICE("nvmlDeviceGetClockInfo", d); OUT(mhz);
    switch (type) {
        case 1: *mhz = 1410; return NVML_SUCCESS; /* SM */
        case 2: *mhz = 1215; return NVML_SUCCESS; /* MEM */
        default: return NVML_ERROR_NOT_SUPPORTED;
    }
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int errorType, int counterType, unsigned long long *count) {
    DEVICE("nvmlDeviceGetTotalEccErrors", d); OUT(count);
    /* corrected (SBE): volatile = index, aggregate = 10 + index; uncorrected (DBE): volatile 0, aggregate 1 */
    if (errorType == 0) *count = counterType == 0 ? (unsigned long long) d->gpu : 10ULL + d->gpu;
    else *count = counterType == 0 ? 0 : 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int *value) {
    DEVICE("nvmlDeviceGetPcieReplayCounter", d); OUT(value);
    *value = 2u * (unsigned int) d->gpu;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int *kbps) {
    DEVICE("nvmlDeviceGetPcieThroughput", d); OUT(kbps);
    *kbps = (counter == 0 ? 1000u : 2000u) * (unsigned int) (d->gpu + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count, nvmlFieldValue_t *values) {
    DEVICE("nvmlDeviceGetFieldValues", d);
    if (count < 0 || (count > 0 && values == NULL)) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++) {
        nvmlFieldValue_t *v = &values[i];
        v->timestamp = (long long) time(NULL) * 1000000LL;
        v->latencyUsec = 0;
        v->nvmlReturn = NVML_SUCCESS;
        if (v->fieldId == 82) { v->valueType = 1; v->value.uiVal = 45u + (unsigned int) d->gpu; }              /* memory temp */
        else if (v->fieldId == 66) { v->valueType = 3; v->value.ullVal = 123456ULL * (d->gpu + 1); }          /* NVLink C0 total */
        else v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t d, unsigned int *util, unsigned int *periodUs) {
    DEVICE("nvmlDeviceGetEncoderUtilization", d); OUT(util); OUT(periodUs);
    *util = 2u * (unsigned int) d->gpu; *periodUs = 167000u;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t d, unsigned int *util, unsigned int *periodUs) {
    DEVICE("nvmlDeviceGetDecoderUtilization", d); OUT(util); OUT(periodUs);
    *util = 3u * (unsigned int) d->gpu + 1u; *periodUs = 167000u;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc, unsigned int *pending,
                                       unsigned int *failed) {
    DEVICE("nvmlDeviceGetRemappedRows", d); OUT(corr); OUT(unc); OUT(pending); OUT(failed);
    *corr = (unsigned int) d->gpu; *unc = 2u; *pending = 0u; *failed = d->gpu == 3 ? 1u : 0u;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count, unsigned long long *addresses) {
    DEVICE("nvmlDeviceGetRetiredPages", d); OUT(count);
    unsigned int n;
    if (cause == 0) n = (unsigned int) (d->gpu % 3);
    else if (cause == 1) n = d->gpu == 5 ? 1u : 0u;
    else return NVML_ERROR_INVALID_ARGUMENT;
    if (*count < n) { *count = n; return NVML_ERROR_INSUFFICIENT_SIZE; }
    if (n > 0 && addresses == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned int k = 0; k < n; k++) addresses[k] = 0x1000ULL * (k + 1);
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *pending) {
    DEVICE("nvmlDeviceGetRetiredPagesPendingStatus", d); OUT(pending);
    *pending = d->gpu == 5;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *reasons) {
    DEVICE("nvmlDeviceGetCurrentClocksEventReasons", d); OUT(reasons);
    *reasons = d->gpu == 0 ? 0x1ULL : 0x4ULL;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons) {
    DEVICE("nvmlDeviceGetCurrentClocksThrottleReasons", d); OUT(reasons);
    *reasons = d->gpu == 0 ? 0x1ULL : 0x4ULL;
    return NVML_SUCCESS;
}

typedef struct { unsigned long long referenceTime, violationTime; } nvmlViolationTime_t;

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t d, int policy, nvmlViolationTime_t *t) {
    DEVICE("nvmlDeviceGetViolationStatus", d); OUT(t);
    if (policy < 0 || policy > 5) return NVML_ERROR_NOT_SUPPORTED;
    t->referenceTime = (unsigned long long) time(NULL) * 1000000ULL;
    t->violationTime = 1000000ULL * (unsigned long long) (policy + 1) * (unsigned long long) (d->gpu + 1);
    return NVML_SUCCESS;
}

/* ---- processes ---- */
#define MAX_PROCS 64
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
static struct { int gpu; unsigned int pid; unsigned long long mem; unsigned int sm, memu, enc, dec; } procs[MAX_PROCS];
static int proc_count;
static unsigned long long util_stamp, last_seen;

int mock_nvml_set_processes(const char *spec) {
    pthread_mutex_lock(&lock);
    proc_count = 0;
    if (spec != NULL) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", spec);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok && proc_count < MAX_PROCS; tok = strtok_r(NULL, ",", &save)) {
            int g; unsigned int pid, sm, mu, enc, dec; char mem[32];
            if (sscanf(tok, "%d:%u:%31[^:]:%u:%u:%u:%u", &g, &pid, mem, &sm, &mu, &enc, &dec) != 7) continue;
            procs[proc_count].gpu = g; procs[proc_count].pid = pid;
            procs[proc_count].mem = strcmp(mem, "-") == 0 ? NVML_VALUE_NOT_AVAILABLE_ULL : strtoull(mem, NULL, 10) * MIB;
            procs[proc_count].sm = sm; procs[proc_count].memu = mu; procs[proc_count].enc = enc; procs[proc_count].dec = dec;
            proc_count++;
        }
    }
    pthread_mutex_unlock(&lock);
    return proc_count;
}

unsigned long long mock_nvml_last_seen_timestamp(void) { return __atomic_load_n(&last_seen, __ATOMIC_RELAXED); }

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
    DEVICE("nvmlDeviceGetComputeRunningProcesses_v3", d); OUT(count);
    if (d->mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&lock);
    unsigned int n = 0;
    for (int i = 0; i < proc_count; i++) if (procs[i].gpu == d->gpu) n++;
    if (n > *count || (n > 0 && infos == NULL)) { *count = n; pthread_mutex_unlock(&lock); return NVML_ERROR_INSUFFICIENT_SIZE; }
    unsigned int k = 0;
    for (int i = 0; i < proc_count; i++) {
        if (procs[i].gpu != d->gpu) continue;
        infos[k].pid = procs[i].pid; infos[k].usedGpuMemory = procs[i].mem;
        infos[k].gpuInstanceId = 0xFFFFFFFFu; infos[k].computeInstanceId = 0xFFFFFFFFu;
        k++;
    }
    *count = n;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *samples,
                                             unsigned int *count, unsigned long long lastSeenTimeStamp) {
    DEVICE("nvmlDeviceGetProcessUtilization", d); OUT(count);
    if (d->mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    __atomic_store_n(&last_seen, lastSeenTimeStamp, __ATOMIC_RELAXED);
    pthread_mutex_lock(&lock);
    unsigned int n = 0;
    for (int i = 0; i < proc_count; i++) if (procs[i].gpu == d->gpu) n++;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long now = (unsigned long long) ts.tv_sec * 1000000ULL + (unsigned long long) ts.tv_nsec / 1000ULL;
    unsigned long long stamp = now > util_stamp ? now : util_stamp + 1;
    if (n == 0 || lastSeenTimeStamp >= stamp) { pthread_mutex_unlock(&lock); return NVML_ERROR_NOT_FOUND; }
    if (n > *count || samples == NULL) { *count = n; pthread_mutex_unlock(&lock); return NVML_ERROR_INSUFFICIENT_SIZE; }
    util_stamp = stamp;
    unsigned int k = 0;
    for (int i = 0; i < proc_count; i++) {
        if (procs[i].gpu != d->gpu) continue;
        samples[k].pid = procs[i].pid; samples[k].timeStamp = stamp;
        samples[k].smUtil = procs[i].sm; samples[k].memUtil = procs[i].memu;
        samples[k].encUtil = procs[i].enc; samples[k].decUtil = procs[i].dec;
        k++;
    }
    *count = n;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

/* ---- GPM ---- */
#define GPM_METRIC_MAX 98
typedef struct { unsigned int version, isSupportedDevice; } nvmlGpmSupport_t;
typedef struct mock_gpm_sample { unsigned int magic; int gpu; unsigned long long seq; } *nvmlGpmSample_t;
typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct { char *shortName, *longName, *unit; } metricInfo;
} nvmlGpmMetric_t;
typedef struct {
    unsigned int version, numMetrics;
    nvmlGpmSample_t sample1, sample2;
    nvmlGpmMetric_t metrics[GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define GPM_MAGIC 0x47504D31u
static int gpm_live;
static unsigned long long gpm_seq;

int mock_nvml_gpm_samples_live(void) { return __atomic_load_n(&gpm_live, __ATOMIC_RELAXED); }

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t d, nvmlGpmSupport_t *support) {
    DEVICE("nvmlGpmQueryDeviceSupport", d); OUT(support);
    if (support->version != 1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    support->isSupportedDevice = d->mig < 0 && d->gpu != 7;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample) {
    NEED_INIT(); FAIL("nvmlGpmSampleAlloc", -1); OUT(sample);
    *sample = calloc(1, sizeof(struct mock_gpm_sample));
    if (*sample == NULL) return 20; /* NVML_ERROR_MEMORY */
    (*sample)->magic = GPM_MAGIC; (*sample)->gpu = -1;
    __atomic_add_fetch(&gpm_live, 1, __ATOMIC_RELAXED);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
    NEED_INIT();
    if (sample == NULL || sample->magic != GPM_MAGIC) return NVML_ERROR_INVALID_ARGUMENT;
    sample->magic = 0;
    free(sample);
    __atomic_sub_fetch(&gpm_live, 1, __ATOMIC_RELAXED);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t d, nvmlGpmSample_t sample) {
    DEVICE("nvmlGpmSampleGet", d);
    if (sample == NULL || sample->magic != GPM_MAGIC || d->mig >= 0 || d->gpu == 7) return NVML_ERROR_INVALID_ARGUMENT;
    sample->gpu = d->gpu;
    sample->seq = __atomic_add_fetch(&gpm_seq, 1, __ATOMIC_RELAXED);
    return NVML_SUCCESS;
}

static int gpm_value(int g, unsigned int id, double *v) {
    switch (id) {
        case 1: *v = 10.0 * g + 5; return NVML_SUCCESS;  /* graphics */
        case 2: *v = 9.0 * g + 4; return NVML_SUCCESS;   /* SM */
        case 3: *v = 4.0 * g + 2; return NVML_SUCCESS;   /* SM occupancy */
        case 5: *v = 3.0 * g + 1; return NVML_SUCCESS;   /* any tensor */
        case 10: *v = 5.0 * g + 3; return NVML_SUCCESS;  /* DRAM bandwidth */
        case 11: if (g == 2) return NVML_ERROR_NOT_SUPPORTED; *v = g; return NVML_SUCCESS; /* FP64 */
        case 12: *v = 2.0 * g + 1; return NVML_SUCCESS;  /* FP32 */
        case 13: *v = g + 2.0; return NVML_SUCCESS;      /* FP16 */
        case 20: *v = 100.0 * (g + 1); return NVML_SUCCESS; /* PCIe TX MiB/s */
        case 21: *v = 200.0 * (g + 1); return NVML_SUCCESS; /* PCIe RX MiB/s */
        case 60: *v = 300.0 * (g + 1); return NVML_SUCCESS; /* NVLink RX MiB/s */
        case 61: *v = 400.0 * (g + 1); return NVML_SUCCESS; /* NVLink TX MiB/s */
        default: return NVML_ERROR_NOT_SUPPORTED;
    }
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m) {
    NEED_INIT(); OUT(m);
    if (m->version != 1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (m->numMetrics > GPM_METRIC_MAX) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlGpmSample_t a = m->sample1, b = m->sample2;
    if (a == NULL || b == NULL || a->magic != GPM_MAGIC || b->magic != GPM_MAGIC) return NVML_ERROR_INVALID_ARGUMENT;
    if (a->gpu < 0 || a->gpu != b->gpu || b->seq <= a->seq) return NVML_ERROR_INVALID_ARGUMENT;
    FAIL("nvmlGpmMetricsGet", a->gpu);
    for (unsigned int k = 0; k < m->numMetrics; k++) {
        nvmlGpmMetric_t *x = &m->metrics[k];
        x->value = 0;
        x->nvmlReturn = gpm_value(a->gpu, x->metricId, &x->value);
    }
    return NVML_SUCCESS;
}

/* ---- events ---- */
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    NEED_INIT(); FAIL("nvmlEventSetCreate", -1); OUT(set);
    *set = calloc(1, sizeof(struct mock_event_set));
    return *set ? NVML_SUCCESS : 20; /* NVML_ERROR_MEMORY */
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types) {
    DEVICE("nvmlDeviceGetSupportedEventTypes", d); OUT(types);
    *types = SUPPORTED_EVENTS;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
    DEVICE("nvmlDeviceRegisterEvents", d);
    if (set == NULL || d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (types & ~SUPPORTED_EVENTS) return NVML_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&lock);
    set->mask[d->gpu] |= types;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    NEED_INIT(); FAIL("nvmlEventSetWait_v2", -1);
    if (set == NULL || data == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeoutms / 1000;
    deadline.tv_nsec += (long) (timeoutms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&lock);
    for (;;) {
        if (lost_pending) { lost_pending = 0; pthread_mutex_unlock(&lock); return NVML_ERROR_GPU_IS_LOST; }
        while (event_count > 0) {
            int g = events[0].gpu;
            unsigned long long xid = events[0].xid;
            memmove(&events[0], &events[1], sizeof events[0] * (size_t) (event_count - 1));
            event_count--;
            if (g >= 0 && g < NGPU && (set->mask[g] & XID_CRITICAL)) {
                data->device = &gpus[g];
                data->eventType = XID_CRITICAL;
                data->eventData = xid;
                data->gpuInstanceId = g == 0 ? 5u : 0xFFFFFFFFu; /* on GPU 0 the error is in GI 5 */
                data->computeInstanceId = g == 0 ? 0u : 0xFFFFFFFFu;
                pthread_mutex_unlock(&lock);
                return NVML_SUCCESS;
            }
        }
        if (pthread_cond_timedwait(&changed, &lock, &deadline) == ETIMEDOUT) {
            pthread_mutex_unlock(&lock);
            return NVML_ERROR_TIMEOUT;
        }
    }
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    NEED_INIT();
    if (set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    free(set);
    return NVML_SUCCESS;
}
