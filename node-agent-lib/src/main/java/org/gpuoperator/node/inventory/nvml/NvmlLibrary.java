package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The NVML C API as Java sees it through the foreign function API: one downcall handle per
 * function, struct layouts as declared in {@code nvml.h}, and {@code nvmlReturn_t} as a plain
 * {@code int}. No policy lives here; callers decide what a code means. Thread-safe: handles are
 * immutable and NVML itself is thread-safe. The library is looked up in an automatic arena, so it
 * stays loaded while these handles are reachable: no thread can call into unloaded code, even one
 * still sampling while another shuts NVML down.
 */
final class NvmlLibrary {

    /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}, {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
    static final int DEVICE_STRING_BUFFER = 96;

    /**
     * {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}, {@code NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE}.
     */
    static final int SYSTEM_STRING_BUFFER = 80;

    /** {@code NVML_NVLINK_MAX_LINKS} of current drivers. */
    static final int NVLINK_MAX_LINKS = 18;

    static final int TEMPERATURE_GPU = 0;
    static final int CLOCK_SM = 1;
    static final int CLOCK_MEM = 2;
    static final int MEMORY_ERROR_CORRECTED = 0;
    static final int MEMORY_ERROR_UNCORRECTED = 1;
    static final int ECC_COUNTER_VOLATILE = 0;
    static final int ECC_COUNTER_AGGREGATE = 1;
    static final int PCIE_UTIL_TX_BYTES = 0;
    static final int PCIE_UTIL_RX_BYTES = 1;
    static final int P2P_CAPS_INDEX_NVLINK = 2;
    static final int P2P_STATUS_OK = 0;
    static final int DEVICE_MIG_DISABLE = 0;
    static final int DEVICE_MIG_ENABLE = 1;

    /** {@code NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED}. */
    static final int COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0;

    /** {@code NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1}: 1 slice with media extensions. */
    static final int GPU_INSTANCE_PROFILE_1_SLICE_REV1 = 0x7;

    /** {@code NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1}: 2 slices with media extensions. */
    static final int GPU_INSTANCE_PROFILE_2_SLICE_REV1 = 0x8;

    /** {@code NVML_GPU_INSTANCE_PROFILE_1_SLICE_GFX} .. {@code _4_SLICE_GFX}: graphics capable. */
    static final int GPU_INSTANCE_PROFILE_1_SLICE_GFX = 0xA;

    static final int GPU_INSTANCE_PROFILE_2_SLICE_GFX = 0xB;

    static final int GPU_INSTANCE_PROFILE_4_SLICE_GFX = 0xC;

    /**
     * {@code NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME}, {@code _2_SLICE_NO_ME}: no media engines.
     */
    static final int GPU_INSTANCE_PROFILE_1_SLICE_NO_ME = 0xD;

    static final int GPU_INSTANCE_PROFILE_2_SLICE_NO_ME = 0xE;

    /** {@code NVML_GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME}, {@code _2_SLICE_ALL_ME}: all media. */
    static final int GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME = 0xF;

    static final int GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME = 0x10;

    /** {@code NVML_GPU_INSTANCE_PROFILE_3_SLICE_GFX}: 3 slices, graphics and media. */
    static final int GPU_INSTANCE_PROFILE_3_SLICE_GFX = 0x11;

    static final long EVENT_TYPE_XID_CRITICAL_ERROR = 0x8L;

    /** gpuInstanceId / computeInstanceId of an event that concerns the whole GPU. */
    static final int INSTANCE_NONE = 0xFFFFFFFF;

    /** {@code nvmlPageRetirementCause_t}. */
    static final int PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;

    static final int PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;

    /**
     * {@code nvmlPerfPolicyType_t}: POWER, THERMAL, SYNC_BOOST, BOARD_LIMIT, LOW_UTILIZATION,
     * RELIABILITY.
     */
    static final int PERF_POLICY_POWER = 0;

    static final int PERF_POLICY_THERMAL = 1;
    static final int PERF_POLICY_SYNC_BOOST = 2;
    static final int PERF_POLICY_BOARD_LIMIT = 3;
    static final int PERF_POLICY_LOW_UTILIZATION = 4;
    static final int PERF_POLICY_RELIABILITY = 5;

    /** {@code NVML_GPM_SUPPORT_VERSION}, {@code NVML_GPM_METRICS_GET_VERSION}. */
    static final int GPM_SUPPORT_VERSION = 1;

    static final int GPM_METRICS_GET_VERSION = 1;

    /** {@code nvmlGpmMetricId_t} values this binding asks for. */
    static final int GPM_METRIC_GRAPHICS_UTIL = 1;

    static final int GPM_METRIC_SM_UTIL = 2;
    static final int GPM_METRIC_SM_OCCUPANCY = 3;
    static final int GPM_METRIC_ANY_TENSOR_UTIL = 5;
    static final int GPM_METRIC_DRAM_BW_UTIL = 10;
    static final int GPM_METRIC_FP64_UTIL = 11;
    static final int GPM_METRIC_FP32_UTIL = 12;
    static final int GPM_METRIC_FP16_UTIL = 13;
    static final int GPM_METRIC_PCIE_TX_PER_SEC = 20;
    static final int GPM_METRIC_PCIE_RX_PER_SEC = 21;
    static final int GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60;
    static final int GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61;

    /**
     * Room for {@code nvmlGpmMetricsGet_t.metrics}: {@code NVML_GPM_METRIC_MAX} is 98 in CUDA
     * 12.0's header and 333 in CUDA 13's; NVML writes only {@code numMetrics} entries, so the
     * larger one fits every driver.
     */
    static final int GPM_METRIC_SLOTS = 333;

    static final int FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL = 66;
    static final int FI_DEV_MEMORY_TEMP = 82;
    static final int VALUE_TYPE_DOUBLE = 0;
    static final int VALUE_TYPE_UNSIGNED_INT = 1;
    static final int VALUE_TYPE_UNSIGNED_LONG = 2;
    static final int VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
    static final int VALUE_TYPE_SIGNED_LONG_LONG = 4;
    static final int VALUE_TYPE_SIGNED_INT = 5;
    static final int VALUE_TYPE_UNSIGNED_SHORT = 6;

    /** {@code nvmlMemory_t}. */
    static final StructLayout MEMORY =
            MemoryLayout.structLayout(
                            JAVA_LONG.withName("total"),
                            JAVA_LONG.withName("free"),
                            JAVA_LONG.withName("used"))
                    .withName("nvmlMemory_t");

    /**
     * {@code nvmlMemory_v2_t}: the version word is followed by 4 bytes of padding before the 8-byte
     * fields.
     */
    static final StructLayout MEMORY_V2 =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("version"),
                            MemoryLayout.paddingLayout(4),
                            JAVA_LONG.withName("total"),
                            JAVA_LONG.withName("reserved"),
                            JAVA_LONG.withName("free"),
                            JAVA_LONG.withName("used"))
                    .withName("nvmlMemory_v2_t");

    /** {@code nvmlMemory_v2}: NVML_STRUCT_VERSION(Memory, 2) = sizeof | 2 << 24. */
    static final int MEMORY_V2_VERSION = (int) MEMORY_V2.byteSize() | (2 << 24);

    /** {@code nvmlPciInfo_t}. */
    static final StructLayout PCI_INFO =
            MemoryLayout.structLayout(
                            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("busIdLegacy"),
                            JAVA_INT.withName("domain"),
                            JAVA_INT.withName("bus"),
                            JAVA_INT.withName("device"),
                            JAVA_INT.withName("pciDeviceId"),
                            JAVA_INT.withName("pciSubSystemId"),
                            MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("busId"))
                    .withName("nvmlPciInfo_t");

    /** {@code nvmlUtilization_t}. */
    static final StructLayout UTILIZATION =
            MemoryLayout.structLayout(JAVA_INT.withName("gpu"), JAVA_INT.withName("memory"))
                    .withName("nvmlUtilization_t");

    /** {@code nvmlDeviceAttributes_t}. */
    static final StructLayout DEVICE_ATTRIBUTES =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("multiprocessorCount"),
                            JAVA_INT.withName("sharedCopyEngineCount"),
                            JAVA_INT.withName("sharedDecoderCount"),
                            JAVA_INT.withName("sharedEncoderCount"),
                            JAVA_INT.withName("sharedJpegCount"),
                            JAVA_INT.withName("sharedOfaCount"),
                            JAVA_INT.withName("gpuInstanceSliceCount"),
                            JAVA_INT.withName("computeInstanceSliceCount"),
                            JAVA_LONG.withName("memorySizeMB"))
                    .withName("nvmlDeviceAttributes_t");

    /** {@code nvmlFieldValue_t}; {@code value} is the 8-byte {@code nvmlValue_t} union. */
    static final StructLayout FIELD_VALUE =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("fieldId"),
                            JAVA_INT.withName("scopeId"),
                            JAVA_LONG.withName("timestamp"),
                            JAVA_LONG.withName("latencyUsec"),
                            JAVA_INT.withName("valueType"),
                            JAVA_INT.withName("nvmlReturn"),
                            JAVA_LONG.withName("value"))
                    .withName("nvmlFieldValue_t");

    /** {@code nvmlViolationTime_t}: a CPU timestamp (µs) and the time in violation (ns). */
    static final StructLayout VIOLATION_TIME =
            MemoryLayout.structLayout(
                            JAVA_LONG.withName("referenceTime"),
                            JAVA_LONG.withName("violationTime"))
                    .withName("nvmlViolationTime_t");

    /** {@code nvmlGpmSupport_t}. */
    static final StructLayout GPM_SUPPORT =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("version"), JAVA_INT.withName("isSupportedDevice"))
                    .withName("nvmlGpmSupport_t");

    /** {@code nvmlGpmMetric_t}: id, return code, value, and NVML's names and unit of the metric. */
    static final StructLayout GPM_METRIC =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("metricId"),
                            JAVA_INT.withName("nvmlReturn"),
                            JAVA_DOUBLE.withName("value"),
                            ADDRESS.withName("shortName"),
                            ADDRESS.withName("longName"),
                            ADDRESS.withName("unit"))
                    .withName("nvmlGpmMetric_t");

    /** {@code nvmlGpmMetricsGet_t}; samples are opaque handles. */
    static final StructLayout GPM_METRICS_GET =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("version"),
                            JAVA_INT.withName("numMetrics"),
                            ADDRESS.withName("sample1"),
                            ADDRESS.withName("sample2"),
                            MemoryLayout.sequenceLayout(GPM_METRIC_SLOTS, GPM_METRIC)
                                    .withName("metrics"))
                    .withName("nvmlGpmMetricsGet_t");

    /**
     * {@code nvmlProcessInfo_t} as {@code nvmlDeviceGetComputeRunningProcesses_v3} fills it: 4
     * bytes of padding after the pid.
     */
    static final StructLayout PROCESS_INFO =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("pid"),
                            MemoryLayout.paddingLayout(4),
                            JAVA_LONG.withName("usedGpuMemory"),
                            JAVA_INT.withName("gpuInstanceId"),
                            JAVA_INT.withName("computeInstanceId"))
                    .withName("nvmlProcessInfo_t");

    /** {@code nvmlProcessUtilizationSample_t}; the time stamp is in microseconds. */
    static final StructLayout PROCESS_UTILIZATION_SAMPLE =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("pid"),
                            MemoryLayout.paddingLayout(4),
                            JAVA_LONG.withName("timeStamp"),
                            JAVA_INT.withName("smUtil"),
                            JAVA_INT.withName("memUtil"),
                            JAVA_INT.withName("encUtil"),
                            JAVA_INT.withName("decUtil"))
                    .withName("nvmlProcessUtilizationSample_t");

    /** {@code NVML_VALUE_NOT_AVAILABLE} as an unsigned long long. */
    static final long VALUE_NOT_AVAILABLE = -1L;

    /** {@code nvmlGpuInstanceProfileInfo_t} (v1, unversioned: no version word, no name). */
    static final StructLayout GPU_INSTANCE_PROFILE_INFO =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("id"),
                            JAVA_INT.withName("isP2pSupported"),
                            JAVA_INT.withName("sliceCount"),
                            JAVA_INT.withName("instanceCount"),
                            JAVA_INT.withName("multiprocessorCount"),
                            JAVA_INT.withName("copyEngineCount"),
                            JAVA_INT.withName("decoderCount"),
                            JAVA_INT.withName("encoderCount"),
                            JAVA_INT.withName("jpegCount"),
                            JAVA_INT.withName("ofaCount"),
                            JAVA_LONG.withName("memorySizeMB"))
                    .withName("nvmlGpuInstanceProfileInfo_t");

    /**
     * {@code nvmlGpuInstanceProfileInfo_v2_t}: a version word first (then 4 bytes of padding before
     * the 8-byte memory size) and the profile's name last.
     */
    static final StructLayout GPU_INSTANCE_PROFILE_INFO_V2 =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("version"),
                            JAVA_INT.withName("id"),
                            JAVA_INT.withName("isP2pSupported"),
                            JAVA_INT.withName("sliceCount"),
                            JAVA_INT.withName("instanceCount"),
                            JAVA_INT.withName("multiprocessorCount"),
                            JAVA_INT.withName("copyEngineCount"),
                            JAVA_INT.withName("decoderCount"),
                            JAVA_INT.withName("encoderCount"),
                            JAVA_INT.withName("jpegCount"),
                            JAVA_INT.withName("ofaCount"),
                            MemoryLayout.paddingLayout(4),
                            JAVA_LONG.withName("memorySizeMB"),
                            MemoryLayout.sequenceLayout(DEVICE_STRING_BUFFER, JAVA_BYTE)
                                    .withName("name"))
                    .withName("nvmlGpuInstanceProfileInfo_v2_t");

    /** {@code nvmlGpuInstanceProfileInfo_v2}: NVML_STRUCT_VERSION(GpuInstanceProfileInfo, 2). */
    static final int GPU_INSTANCE_PROFILE_INFO_V2_VERSION =
            (int) GPU_INSTANCE_PROFILE_INFO_V2.byteSize() | (2 << 24);

    /** {@code nvmlComputeInstanceProfileInfo_t} (v1). */
    static final StructLayout COMPUTE_INSTANCE_PROFILE_INFO =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("id"),
                            JAVA_INT.withName("sliceCount"),
                            JAVA_INT.withName("instanceCount"),
                            JAVA_INT.withName("multiprocessorCount"),
                            JAVA_INT.withName("sharedCopyEngineCount"),
                            JAVA_INT.withName("sharedDecoderCount"),
                            JAVA_INT.withName("sharedEncoderCount"),
                            JAVA_INT.withName("sharedJpegCount"),
                            JAVA_INT.withName("sharedOfaCount"))
                    .withName("nvmlComputeInstanceProfileInfo_t");

    /** {@code nvmlComputeInstanceProfileInfo_v2_t}: a version word first, the name last. */
    static final StructLayout COMPUTE_INSTANCE_PROFILE_INFO_V2 =
            MemoryLayout.structLayout(
                            JAVA_INT.withName("version"),
                            JAVA_INT.withName("id"),
                            JAVA_INT.withName("sliceCount"),
                            JAVA_INT.withName("instanceCount"),
                            JAVA_INT.withName("multiprocessorCount"),
                            JAVA_INT.withName("sharedCopyEngineCount"),
                            JAVA_INT.withName("sharedDecoderCount"),
                            JAVA_INT.withName("sharedEncoderCount"),
                            JAVA_INT.withName("sharedJpegCount"),
                            JAVA_INT.withName("sharedOfaCount"),
                            MemoryLayout.sequenceLayout(DEVICE_STRING_BUFFER, JAVA_BYTE)
                                    .withName("name"))
                    .withName("nvmlComputeInstanceProfileInfo_v2_t");

    /**
     * {@code nvmlComputeInstanceProfileInfo_v2}: NVML_STRUCT_VERSION(ComputeInstanceProfileInfo,
     * 2).
     */
    static final int COMPUTE_INSTANCE_PROFILE_INFO_V2_VERSION =
            (int) COMPUTE_INSTANCE_PROFILE_INFO_V2.byteSize() | (2 << 24);

    /** {@code nvmlGpuInstanceInfo_t}; the placement is two unsigned ints (start, size). */
    static final StructLayout GPU_INSTANCE_INFO =
            MemoryLayout.structLayout(
                            ADDRESS.withName("device"),
                            JAVA_INT.withName("id"),
                            JAVA_INT.withName("profileId"),
                            JAVA_INT.withName("placementStart"),
                            JAVA_INT.withName("placementSize"))
                    .withName("nvmlGpuInstanceInfo_t");

    /** {@code nvmlEventData_t} (with the GPU/compute instance ids of current drivers). */
    static final StructLayout EVENT_DATA =
            MemoryLayout.structLayout(
                            ADDRESS.withName("device"),
                            JAVA_LONG.withName("eventType"),
                            JAVA_LONG.withName("eventData"),
                            JAVA_INT.withName("gpuInstanceId"),
                            JAVA_INT.withName("computeInstanceId"))
                    .withName("nvmlEventData_t");

    // Field offsets, resolved once: layout path lookups are too slow for the sampling path.
    static final long MEMORY_TOTAL = offset(MEMORY, "total");
    static final long MEMORY_FREE = offset(MEMORY, "free");
    static final long MEMORY_USED = offset(MEMORY, "used");
    static final long MEMORY_V2_TOTAL = offset(MEMORY_V2, "total");
    static final long MEMORY_V2_RESERVED = offset(MEMORY_V2, "reserved");
    static final long MEMORY_V2_FREE = offset(MEMORY_V2, "free");
    static final long PCI_BUS_ID = offset(PCI_INFO, "busId");
    static final long UTILIZATION_GPU = offset(UTILIZATION, "gpu");
    static final long UTILIZATION_MEMORY = offset(UTILIZATION, "memory");
    static final long ATTR_MULTIPROCESSORS = offset(DEVICE_ATTRIBUTES, "multiprocessorCount");
    static final long ATTR_COPY_ENGINES = offset(DEVICE_ATTRIBUTES, "sharedCopyEngineCount");
    static final long ATTR_DECODERS = offset(DEVICE_ATTRIBUTES, "sharedDecoderCount");
    static final long ATTR_ENCODERS = offset(DEVICE_ATTRIBUTES, "sharedEncoderCount");
    static final long ATTR_JPEGS = offset(DEVICE_ATTRIBUTES, "sharedJpegCount");
    static final long ATTR_OFAS = offset(DEVICE_ATTRIBUTES, "sharedOfaCount");
    static final long ATTR_GI_SLICES = offset(DEVICE_ATTRIBUTES, "gpuInstanceSliceCount");
    static final long ATTR_CI_SLICES = offset(DEVICE_ATTRIBUTES, "computeInstanceSliceCount");
    static final long ATTR_MEMORY_MB = offset(DEVICE_ATTRIBUTES, "memorySizeMB");
    static final long FIELD_VALUE_TYPE = offset(FIELD_VALUE, "valueType");
    static final long FIELD_RETURN = offset(FIELD_VALUE, "nvmlReturn");
    static final long FIELD_VALUE_UNION = offset(FIELD_VALUE, "value");
    static final long EVENT_DEVICE = offset(EVENT_DATA, "device");
    static final long EVENT_TYPE = offset(EVENT_DATA, "eventType");
    static final long EVENT_DATA_VALUE = offset(EVENT_DATA, "eventData");
    static final long EVENT_GPU_INSTANCE = offset(EVENT_DATA, "gpuInstanceId");
    static final long EVENT_COMPUTE_INSTANCE = offset(EVENT_DATA, "computeInstanceId");
    static final long GPU_INSTANCE_INFO_ID = offset(GPU_INSTANCE_INFO, "id");
    static final long VIOLATION_TIME_VALUE = offset(VIOLATION_TIME, "violationTime");
    static final long GPM_SUPPORT_SUPPORTED = offset(GPM_SUPPORT, "isSupportedDevice");
    static final long GPM_GET_NUM_METRICS = offset(GPM_METRICS_GET, "numMetrics");
    static final long GPM_GET_SAMPLE1 = offset(GPM_METRICS_GET, "sample1");
    static final long GPM_GET_SAMPLE2 = offset(GPM_METRICS_GET, "sample2");
    static final long GPM_GET_METRICS = offset(GPM_METRICS_GET, "metrics");
    static final long GPM_METRIC_ID = offset(GPM_METRIC, "metricId");
    static final long GPM_METRIC_RETURN = offset(GPM_METRIC, "nvmlReturn");
    static final long GPM_METRIC_VALUE = offset(GPM_METRIC, "value");
    static final long PROCESS_PID = offset(PROCESS_INFO, "pid");
    static final long PROCESS_USED_MEMORY = offset(PROCESS_INFO, "usedGpuMemory");
    static final long PROCESS_UTIL_PID = offset(PROCESS_UTILIZATION_SAMPLE, "pid");
    static final long PROCESS_UTIL_TIME = offset(PROCESS_UTILIZATION_SAMPLE, "timeStamp");
    static final long PROCESS_UTIL_SM = offset(PROCESS_UTILIZATION_SAMPLE, "smUtil");
    static final long PROCESS_UTIL_MEM = offset(PROCESS_UTILIZATION_SAMPLE, "memUtil");
    static final long PROCESS_UTIL_ENC = offset(PROCESS_UTILIZATION_SAMPLE, "encUtil");
    static final long PROCESS_UTIL_DEC = offset(PROCESS_UTILIZATION_SAMPLE, "decUtil");

    static long offset(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }

    /**
     * Every NVML function the binding calls; {@code required} ones must exist for the library to be
     * usable.
     */
    enum Fn {
        nvmlInit_v2(true),
        nvmlShutdown(true),
        nvmlErrorString(true, FunctionDescriptor.of(ADDRESS, JAVA_INT)),
        nvmlSystemGetDriverVersion(true, ADDRESS, JAVA_INT),
        nvmlSystemGetNVMLVersion(false, ADDRESS, JAVA_INT),
        nvmlSystemGetCudaDriverVersion_v2(false, ADDRESS),
        nvmlDeviceGetCount_v2(true, ADDRESS),
        nvmlDeviceGetHandleByIndex_v2(true, JAVA_INT, ADDRESS),
        nvmlDeviceGetUUID(true, ADDRESS, ADDRESS, JAVA_INT),
        nvmlDeviceGetName(true, ADDRESS, ADDRESS, JAVA_INT),
        nvmlDeviceGetMemoryInfo(true, ADDRESS, ADDRESS),
        nvmlDeviceGetMemoryInfo_v2(false, ADDRESS, ADDRESS),
        nvmlDeviceGetPciInfo_v3(true, ADDRESS, ADDRESS),
        nvmlDeviceGetMinorNumber(true, ADDRESS, ADDRESS),
        nvmlDeviceGetCudaComputeCapability(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetNumaNodeId(false, ADDRESS, ADDRESS),
        nvmlDeviceGetMigMode(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetMaxMigDeviceCount(false, ADDRESS, ADDRESS),
        nvmlDeviceGetMigDeviceHandleByIndex(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetGpuInstanceId(false, ADDRESS, ADDRESS),
        nvmlDeviceGetComputeInstanceId(false, ADDRESS, ADDRESS),
        nvmlDeviceGetAttributes_v2(false, ADDRESS, ADDRESS),
        nvmlDeviceGetTopologyCommonAncestor(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetP2PStatus(false, ADDRESS, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetNvLinkState(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetNvLinkRemotePciInfo_v2(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetUtilizationRates(false, ADDRESS, ADDRESS),
        nvmlDeviceGetTemperature(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetPowerUsage(false, ADDRESS, ADDRESS),
        nvmlDeviceGetTotalEnergyConsumption(false, ADDRESS, ADDRESS),
        nvmlDeviceGetClockInfo(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetTotalEccErrors(false, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
        nvmlDeviceGetPcieReplayCounter(false, ADDRESS, ADDRESS),
        nvmlDeviceGetPcieThroughput(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetFieldValues(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetEncoderUtilization(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetDecoderUtilization(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetRemappedRows(false, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetRetiredPages(false, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
        nvmlDeviceGetRetiredPagesPendingStatus(false, ADDRESS, ADDRESS),
        nvmlDeviceGetCurrentClocksEventReasons(false, ADDRESS, ADDRESS),
        /** The name of {@code nvmlDeviceGetCurrentClocksEventReasons} before driver 535. */
        nvmlDeviceGetCurrentClocksThrottleReasons(false, ADDRESS, ADDRESS),
        nvmlDeviceGetViolationStatus(false, ADDRESS, JAVA_INT, ADDRESS),
        // per-process accounting (NvmlProcesses)
        nvmlDeviceGetComputeRunningProcesses_v3(false, ADDRESS, ADDRESS, ADDRESS),
        nvmlDeviceGetProcessUtilization(false, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG),
        // GPM (profiling metrics, Hopper and later)
        nvmlGpmQueryDeviceSupport(false, ADDRESS, ADDRESS),
        nvmlGpmSampleAlloc(false, ADDRESS),
        nvmlGpmSampleFree(false, ADDRESS),
        nvmlGpmSampleGet(false, ADDRESS, ADDRESS),
        nvmlGpmMetricsGet(false, ADDRESS),
        nvmlEventSetCreate(false, ADDRESS),
        nvmlDeviceGetSupportedEventTypes(false, ADDRESS, ADDRESS),
        nvmlDeviceRegisterEvents(false, ADDRESS, JAVA_LONG, ADDRESS),
        nvmlEventSetWait_v2(false, ADDRESS, ADDRESS, JAVA_INT),
        nvmlEventSetFree(false, ADDRESS),
        // MIG partitioning (NvmlMigPartitioner); a driver without them can still be read.
        nvmlDeviceSetMigMode(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetGpuInstanceProfileInfo(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetGpuInstanceProfileInfoV(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlDeviceGetGpuInstances(false, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
        nvmlDeviceCreateGpuInstance(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlGpuInstanceDestroy(false, ADDRESS),
        nvmlGpuInstanceGetInfo(false, ADDRESS, ADDRESS),
        nvmlGpuInstanceGetComputeInstanceProfileInfo(false, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
        nvmlGpuInstanceGetComputeInstanceProfileInfoV(false, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
        nvmlGpuInstanceGetComputeInstances(false, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
        nvmlGpuInstanceCreateComputeInstance(false, ADDRESS, JAVA_INT, ADDRESS),
        nvmlComputeInstanceDestroy(false, ADDRESS);

        final boolean required;
        final FunctionDescriptor descriptor;

        Fn(boolean required, MemoryLayout... args) {
            this(required, FunctionDescriptor.of(JAVA_INT, args));
        }

        Fn(boolean required, FunctionDescriptor descriptor) {
            this.required = required;
            this.descriptor = descriptor;
        }
    }

    private final String location;
    private final MethodHandle[] handles = new MethodHandle[Fn.values().length];

    /**
     * Binds every function of {@link Fn} in {@code lookup}. Fails (naming the functions) when a
     * required one is missing: then this is not a usable NVML.
     */
    NvmlLibrary(String location, SymbolLookup lookup) {
        this.location = location;
        Linker linker = Linker.nativeLinker();
        List<String> missing = new ArrayList<>();
        for (Fn fn : Fn.values()) {
            var symbol = lookup.find(fn.name());
            if (symbol.isPresent()) {
                handles[fn.ordinal()] = linker.downcallHandle(symbol.get(), fn.descriptor);
            } else if (fn.required) {
                missing.add(fn.name());
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(location + " lacks NVML functions " + missing);
        }
    }

    /** Where the library was loaded from (a path, or the soname the loader resolved). */
    String location() {
        return location;
    }

    boolean has(Fn fn) {
        return handles[fn.ordinal()] != null;
    }

    /** NVML's text for a code. */
    String errorString(int code) {
        try {
            MemorySegment s =
                    (MemorySegment) handles[Fn.nvmlErrorString.ordinal()].invokeExact(code);
            return s.equals(MemorySegment.NULL)
                    ? "unknown NVML error " + code
                    : s.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            throw failed(Fn.nvmlErrorString, t);
        }
    }

    /** Throws the typed exception for {@code rc} unless it is success. */
    void check(Fn fn, int rc, String context) {
        if (rc != NvmlReturn.SUCCESS.code()) {
            throw exception(fn, rc, context);
        }
    }

    NvmlException exception(Fn fn, int rc, String context) {
        return new NvmlException(fn.name(), rc, errorString(rc), context);
    }

    // One invoker per C signature: invokeExact needs the exact Java types, and a missing optional
    // function reads
    // as NVML_ERROR_FUNCTION_NOT_FOUND, the code NVML itself uses for it.

    int call(Fn fn) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact();
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, MemorySegment b) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, MemorySegment b, MemorySegment c) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, int i) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, i);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, int i, MemorySegment a) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(i, a);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, int i, MemorySegment b) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, i, b);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, int i, MemorySegment b, MemorySegment c) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, i, b, c);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, MemorySegment b, int i) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b, i);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, int i, int j, MemorySegment b) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, i, j, b);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, MemorySegment b, int i, MemorySegment c) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b, i, c);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(
            Fn fn,
            MemorySegment a,
            MemorySegment b,
            MemorySegment c,
            MemorySegment d,
            MemorySegment e) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b, c, d, e);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, long l, MemorySegment b) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, l, b);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    int call(Fn fn, MemorySegment a, MemorySegment b, MemorySegment c, long l) {
        MethodHandle h = handles[fn.ordinal()];
        if (h == null) {
            return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
        }
        try {
            return (int) h.invokeExact(a, b, c, l);
        } catch (Throwable t) {
            throw failed(fn, t);
        }
    }

    private static IllegalStateException failed(Fn fn, Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("calling " + fn + " failed", t);
    }
}
