package org.gpuoperator.exporter.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.function.Supplier;
import org.gpuoperator.exporter.podresources.Attribution;
import org.gpuoperator.exporter.sampling.Samples;

/**
 * Serves the families of the latest samples and attribution. Between sampling rounds and pod
 * changes every scrape gets the same prebuilt families, so a scrape costs only their serialisation.
 * Holds exactly one result: memory does not grow with the number of scrapes, pods or label values
 * ever seen.
 */
public final class DcgmCollector implements MultiCollector {

    private final GpuMetricFamilies families;
    private final Supplier<Samples> samples;
    private final Supplier<Attribution> attribution;
    private volatile Built last;

    private record Built(Samples samples, Attribution attribution, MetricSnapshots snapshots) {}

    public DcgmCollector(
            GpuMetricFamilies families,
            Supplier<Samples> samples,
            Supplier<Attribution> attribution) {
        this.families = families;
        this.samples = samples;
        this.attribution = attribution;
    }

    /**
     * Lock-free when nothing changed: a scrape never waits for a rebuild done on another thread.
     */
    @Override
    public MetricSnapshots collect() {
        Samples s = samples.get();
        Attribution a = attribution.get();
        Built b = last;
        if (b != null && b.samples() == s && (b.attribution() == a || b.attribution().equals(a))) {
            return b.snapshots();
        }
        return rebuild(s, a);
    }

    private synchronized MetricSnapshots rebuild(Samples s, Attribution a) {
        Built b = last;
        if (b != null && b.samples() == s && (b.attribution() == a || b.attribution().equals(a))) {
            return b.snapshots(); // built meanwhile by another thread
        }
        MetricSnapshots built = families.build(s, a);
        last = new Built(s, a, built);
        return built;
    }
}
