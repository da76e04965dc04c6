/*
 * A test double of libnvidia-ml.so.1: exports the NVML symbols the Java FFM binding uses, with the same
 * signatures and struct layouts as nvml.h, and returns a fixed inventory:
 *   8 x "NVIDIA A100-SXM4-40GB" (compute 8.0, 40960 MiB), UUIDs GPU-a1000000-0000-4000-8000-00000000000<i>,
 *   bus ids of a DGX A100, NUMA 0 for GPUs 0-3 and 1 for 4-7,
 *   MIG on for GPU 0 (3g.20gb as GI 1 in MIG slot 0, 1g.5gb as GI 5 in slot 2: slot 1 is empty, as NVML's
 *   indexes may be), MIG capable but off for the others,
 *   NVLink: 4 direct links between GPUs (0,1) (2,3) (4,5) (6,7); other pairs over PCIe.
 *
 * Control (for tests; also settable by environment at nvmlInit_v2):
 *   mock_nvml_set_failures("fn:code,fn@gpu:code")  env MOCK_NVML_FAIL   make fn return code (for one GPU with @gpu)
 *   mock_nvml_inject_xid(gpu, xid)                 env MOCK_NVML_XID=gpu:xid   queue one XID critical-error event
 *   mock_nvml_lose_gpu(gpu) / mock_nvml_recover_gpu(gpu)   GPU answers NVML_ERROR_GPU_IS_LOST / answers again
 *   mock_nvml_init_count()                          how many nvmlInit_v2 are not yet shut down
 *   mock_nvml_reset()                               back to the initial state (no failures, no events, none lost)
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

/* MIG devices of GPU 0: (NVML slot, GI, CI, profile, GI slices, memory MiB, SMs, copy/decoder/encoder/jpeg/ofa
 * engines as the MIG user guide gives them for A100 40GB) */
typedef struct {
    int slot, gi, ci; const char *profile; unsigned int slices; unsigned long long memMiB; unsigned int sms;
    unsigned int copy, dec, enc, jpeg, ofa;
} mig_spec;
static const mig_spec MIG0[2] = {{0, 1, 0, "3g.20gb", 3, 20096, 42, 3, 2, 0, 0, 0},
                                 {2, 5, 0, "1g.5gb", 1, 4864, 14, 1, 0, 0, 0, 0}};

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

void mock_nvml_reset(void) {
    mock_nvml_set_failures(NULL);
    pthread_mutex_lock(&lock);
    event_count = 0; lost_pending = 0; energy_calls = 0;
    memset(lost, 0, sizeof lost);
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
        case 18: return "RM has detected an NVML/RM version mismatch.";
        case 999: return "Unknown Error";
        default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlInit_v2(void) {
    static int parsed;
    if (!parsed) {
        parsed = 1;
        setup_devices();
        const char *f = getenv("MOCK_NVML_FAIL");
        if (f) mock_nvml_set_failures(f);
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
    else snprintf(buf, sizeof buf, "MIG-a1000000-0000-4000-8000-0000000000%d%d", d->gpu, MIG0[d->mig].gi);
    return copy_string(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    DEVICE("nvmlDeviceGetName", d);
    char buf[96];
    if (d->mig < 0) snprintf(buf, sizeof buf, "NVIDIA A100-SXM4-40GB");
    else snprintf(buf, sizeof buf, "NVIDIA A100-SXM4-40GB MIG %s", MIG0[d->mig].profile);
    return copy_string(name, length, buf);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    DEVICE("nvmlDeviceGetMemoryInfo", d); OUT(m);
    if (d->mig >= 0) { m->total = MIG0[d->mig].memMiB * MIB; m->used = 13 * MIB; m->free = m->total - m->used; return NVML_SUCCESS; }
    m->total = 40960ULL * MIB;
    m->used = 1024ULL * (d->gpu + 1) * MIB;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    DEVICE("nvmlDeviceGetMemoryInfo_v2", d); OUT(m);
    if (m->version != ((unsigned int) sizeof(nvmlMemory_v2_t) | (2u << 24))) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    m->total = (d->mig >= 0 ? MIG0[d->mig].memMiB : 40960ULL) * MIB;
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
    *current = *pending = d->gpu == 0 ? 1 : 0;
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
    if (d->gpu != 0) return NVML_ERROR_NOT_FOUND;
    for (int k = 0; k < 2; k++) {
        if (MIG0[k].slot == (int) index) { *mig = &migs[0][k]; return NVML_SUCCESS; }
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEVICE("nvmlDeviceGetGpuInstanceId", d); OUT(id);
    if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = (unsigned int) MIG0[d->mig].gi;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEVICE("nvmlDeviceGetComputeInstanceId", d); OUT(id);
    if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = (unsigned int) MIG0[d->mig].ci;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a) {
    DEVICE("nvmlDeviceGetAttributes_v2", d); OUT(a);
    memset(a, 0, sizeof *a);
    if (d->mig < 0) { a->multiprocessorCount = 108; a->memorySizeMB = 40960; return NVML_SUCCESS; }
    a->multiprocessorCount = MIG0[d->mig].sms;
    a->gpuInstanceSliceCount = a->computeInstanceSliceCount = MIG0[d->mig].slices;
    a->sharedCopyEngineCount = MIG0[d->mig].copy;
    a->sharedDecoderCount = MIG0[d->mig].dec;
    a->sharedEncoderCount = MIG0[d->mig].enc;
    a->sharedJpegCount = MIG0[d->mig].jpeg;
    a->sharedOfaCount = MIG0[d->mig].ofa;
    a->memorySizeMB = MIG0[d->mig].memMiB;
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
                data->gpuInstanceId = g == 0 ? (unsigned int) MIG0[1].gi : 0xFFFFFFFFu; /* on GPU 0 the error is in GI 5 */
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
