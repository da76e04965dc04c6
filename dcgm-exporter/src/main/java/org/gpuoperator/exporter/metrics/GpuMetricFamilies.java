package org.gpuoperator.exporter.metrics;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.gpuoperator.exporter.counters.Counter;
import org.gpuoperator.exporter.counters.CounterType;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.exporter.podresources.Attribution;
import org.gpuoperator.exporter.podresources.ContainerRef;
import org.gpuoperator.exporter.sampling.ProcessUse;
import org.gpuoperator.exporter.sampling.Samples;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.NodeInfo;

/**
 * Pure: the metric families of one scrape from the counters, the node's entities, the latest
 * samples and the pod attribution. No I/O, no clock; the same inputs give the same families.
 *
 * <p>Types: {@code gauge} lines are gauges. The Prometheus Java client always appends {@code
 * _total} to a counter's name, which would rename upstream's {@code DCGM_FI_*} counters and break
 * every dashboard using them; so {@code counter} (and the scalar-only {@code histogram}/{@code
 * summary}) lines are exposed as {@code untyped} under their exact names.
 *
 * <p>Pods: every series of a GPU held by containers is repeated with each holder's {@code pod},
 * {@code namespace} and {@code container} labels, with the GPU's value. On a shared GPU (held as
 * time-slicing or MPS replicas) whose processes and holders' pods are known ({@link
 * PerPodUsage#applies}), the metrics NVML accounts per process ({@link PerPodUsage#METRICS}) are
 * instead one series without pod labels (the whole GPU) plus one per holder with its own processes'
 * value.
 */
public final class GpuMetricFamilies {

    public static final String POD_DEVICES = "dcgm_exporter_pod_resources_devices";

    private final List<Counter> metricCounters;
    private final List<GpuEntity> entities;
    private final List<Labels> baseLabels;

    /**
     * @param counters the counters file (label-type lines become labels, the others metrics)
     * @param node driver facts for label-type fields
     * @param entities what to export
     * @param hostnameLabel {@code Hostname} or {@code hostname}; null to leave the host out
     * @param hostname this node's name
     */
    public GpuMetricFamilies(
            List<Counter> counters,
            NodeInfo node,
            List<GpuEntity> entities,
            String hostnameLabel,
            String hostname) {
        this.metricCounters = counters.stream().filter(c -> c.type() != CounterType.LABEL).toList();
        List<Counter> labelCounters =
                counters.stream().filter(c -> c.type() == CounterType.LABEL).toList();
        this.entities = List.copyOf(entities);
        List<Labels> base = new ArrayList<>();
        for (GpuEntity e : entities) {
            Labels l =
                    Labels.of(
                            LabelNames.GPU, Integer.toString(e.gpu().index()),
                            LabelNames.UUID, e.gpu().uuid(),
                            LabelNames.PCI_BUS_ID, e.gpu().pciBusId(),
                            LabelNames.DEVICE, "nvidia" + e.gpu().minorNumber(),
                            LabelNames.MODEL_NAME, e.gpu().productName());
            if (e.isMig()) {
                l =
                        l.add(LabelNames.GPU_I_PROFILE, e.migInstance().profile())
                                .add(
                                        LabelNames.GPU_I_ID,
                                        Integer.toString(e.migInstance().gpuInstanceId()));
            }
            if (hostnameLabel != null) {
                l = l.add(hostnameLabel, hostname);
            }
            for (Counter c : labelCounters) {
                l = l.add(c.name(), c.field().stringValue(node, e.gpu()));
            }
            base.add(l);
        }
        this.baseLabels = List.copyOf(base);
    }

    /** Adds one point to whichever builder this counter's type uses. */
    private static void point(
            GaugeSnapshot.Builder g, UnknownSnapshot.Builder u, Labels labels, double value) {
        if (g != null) {
            g.dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(labels)
                            .value(value)
                            .build());
        } else {
            u.dataPoint(
                    UnknownSnapshot.UnknownDataPointSnapshot.builder()
                            .labels(labels)
                            .value(value)
                            .build());
        }
    }

    public MetricSnapshots build(Samples samples, Attribution attribution) {
        List<MetricSnapshot> out = new ArrayList<>(metricCounters.size() + 1);
        // Labels for each (entity, holder) pair, computed once per build rather than once per
        // field.
        List<List<Labels>> seriesLabels = new ArrayList<>(entities.size());
        for (int i = 0; i < entities.size(); i++) {
            List<ContainerRef> holders = attribution.holdersOf(entities.get(i));
            Labels base = baseLabels.get(i);
            if (holders.isEmpty()) {
                seriesLabels.add(List.of(base));
            } else {
                List<Labels> ls = new ArrayList<>(holders.size());
                for (ContainerRef h : holders) {
                    ls.add(
                            base.merge(
                                    Labels.of(
                                            LabelNames.CONTAINER,
                                            h.container(),
                                            LabelNames.NAMESPACE,
                                            h.namespace(),
                                            LabelNames.POD,
                                            h.pod())));
                }
                seriesLabels.add(ls);
            }
        }
        // Holders of a shared GPU whose processes are known get their own usage ({@link
        // PerPodUsage}); null elsewhere.
        List<Map<ContainerRef, Map<GpuMetric, Double>>> perPod = new ArrayList<>(entities.size());
        for (GpuEntity e : entities) {
            List<ProcessUse> processes = samples.processesByGpuIndex().get(e.gpuIndex());
            boolean own =
                    !e.isMig()
                            && processes != null
                            && attribution.shared().contains(e.key())
                            && PerPodUsage.applies(e, attribution, processes);
            perPod.add(own ? PerPodUsage.of(e, attribution, processes) : null);
        }
        for (Counter c : metricCounters) {
            GpuMetric metric = c.field().metric().orElseThrow();
            boolean gauge = c.type() == CounterType.GAUGE;
            GaugeSnapshot.Builder g =
                    gauge ? GaugeSnapshot.builder().name(c.name()).help(c.help()) : null;
            UnknownSnapshot.Builder u =
                    gauge ? null : UnknownSnapshot.builder().name(c.name()).help(c.help());
            int points = 0;
            for (int i = 0; i < entities.size(); i++) {
                GpuEntity e = entities.get(i);
                if (e.isMig() && !c.field().perMigInstance()) {
                    continue;
                }
                GpuSample s = samples.byGpuIndex().get(e.gpuIndex());
                if (s == null) {
                    continue;
                }
                OptionalDouble v = s.get(metric);
                if (v.isEmpty()) {
                    continue; // not supported by this GPU: absent, never a made-up zero
                }
                Map<ContainerRef, Map<GpuMetric, Double>> own = perPod.get(i);
                if (own == null || !PerPodUsage.METRICS.contains(metric)) {
                    for (Labels l : seriesLabels.get(i)) {
                        point(g, u, l, v.getAsDouble());
                        points++;
                    }
                    continue;
                }
                // the whole GPU without pod labels, then each holder's own part
                point(g, u, baseLabels.get(i), v.getAsDouble());
                points++;
                List<Labels> holderLabels = seriesLabels.get(i);
                int j = 0;
                for (Map<GpuMetric, Double> values : own.values()) {
                    Double part = values.get(metric);
                    if (part != null) {
                        point(g, u, holderLabels.get(j), part);
                        points++;
                    }
                    j++;
                }
            }
            if (points > 0) {
                out.add(gauge ? g.build() : u.build());
            }
        }
        out.add(
                GaugeSnapshot.builder()
                        .name(POD_DEVICES)
                        .help(
                                "GPU device IDs from the kubelet pod-resources API, by whether they matched a GPU or MIG "
                                        + "instance of this node")
                        .dataPoint(
                                GaugeSnapshot.GaugeDataPointSnapshot.builder()
                                        .labels(Labels.of("state", "mapped"))
                                        .value(attribution.mapped())
                                        .build())
                        .dataPoint(
                                GaugeSnapshot.GaugeDataPointSnapshot.builder()
                                        .labels(Labels.of("state", "unmapped"))
                                        .value(attribution.unmapped())
                                        .build())
                        .build());
        return new MetricSnapshots(out);
    }
}
