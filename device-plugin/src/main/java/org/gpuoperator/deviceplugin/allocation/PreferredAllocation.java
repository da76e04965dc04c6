package org.gpuoperator.deviceplugin.allocation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.deviceplugin.resources.GpuTopology;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.node.deviceconfig.AllocationPolicy;
import org.gpuoperator.node.inventory.GpuLink;

/**
 * GetPreferredAllocation: which of the available devices a container should get. A pure function.
 *
 * <ul>
 *   <li>Whole GPUs: the best-connected set. Most NVLink lanes between the chosen GPUs first, then
 *       the fewest NUMA nodes, then the closest PCIe paths; ties go to the lowest indices. Small
 *       nodes are searched exhaustively.
 *   <li>Replicas and MIG devices: spread over physical GPUs ({@code distributed}) or fill one first
 *       ({@code packed}).
 * </ul>
 *
 * Must-include devices are always part of the answer.
 */
public final class PreferredAllocation {

    /** Above this many candidate sets, whole GPUs are chosen greedily. */
    static final long EXHAUSTIVE_LIMIT = 50_000;

    private final Resource resource;
    private final Map<String, PluginDevice> byId;
    private final Map<String, Integer> position = new HashMap<>();
    private final boolean spreadOverGpus;
    private final GpuTopology topology;
    private final AllocationPolicy policy;

    public PreferredAllocation(Resource resource, GpuTopology topology, AllocationPolicy policy) {
        this.resource = resource;
        this.byId = resource.byId();
        resource.devices().forEach(d -> position.put(d.id(), position.size()));
        this.spreadOverGpus =
                resource.shared() || resource.devices().stream().anyMatch(PluginDevice::mig);
        this.topology = topology;
        this.policy = policy;
    }

    /**
     * @return the preferred IDs: every must-include ID plus the best of the others, {@code size} in
     *     all
     * @throws InvalidRequestException for unknown IDs or a size that cannot be met
     */
    public List<String> choose(List<String> available, List<String> mustInclude, int size) {
        Set<String> avail = new LinkedHashSet<>(available);
        Set<String> must = new LinkedHashSet<>(mustInclude);
        for (String id : avail) {
            known(id);
        }
        for (String id : must) {
            known(id);
        }
        if (size < must.size()) {
            throw new InvalidRequestException(
                    "allocation size "
                            + size
                            + " is smaller than the "
                            + must.size()
                            + " must-include devices");
        }
        Set<String> all = new LinkedHashSet<>(must);
        all.addAll(avail);
        if (size > all.size()) {
            throw new InvalidRequestException(
                    "not enough available devices to satisfy allocation: requested "
                            + size
                            + ", available "
                            + all.size());
        }
        List<PluginDevice> candidates = new ArrayList<>();
        for (String id : avail) {
            if (!must.contains(id)) {
                candidates.add(byId.get(id));
            }
        }
        // the kubelet's order is arbitrary; the resource's order makes the answer stable
        candidates.sort(Comparator.comparingInt(d -> position.get(d.id())));
        List<PluginDevice> required = must.stream().map(byId::get).toList();
        int need = size - required.size();
        List<PluginDevice> picked =
                spreadOverGpus
                        ? spread(required, candidates, need)
                        : bestConnected(required, candidates, need);
        List<String> out = new ArrayList<>(must);
        picked.forEach(d -> out.add(d.id()));
        return out;
    }

    private void known(String id) {
        if (!byId.containsKey(id)) {
            throw new InvalidRequestException(
                    "unknown device: " + id + " (resource " + resource.name() + ")");
        }
    }

    // ---- whole GPUs: topology ----

    private List<PluginDevice> bestConnected(
            List<PluginDevice> required, List<PluginDevice> candidates, int need) {
        if (need == 0) {
            return List.of();
        }
        candidates = new ArrayList<>(candidates);
        candidates.sort(Comparator.comparingInt(PluginDevice::gpuIndex));
        if (combinations(candidates.size(), need) <= EXHAUSTIVE_LIMIT) {
            return exhaustive(required, candidates, need);
        }
        return greedy(required, candidates, need);
    }

    private List<PluginDevice> exhaustive(
            List<PluginDevice> required, List<PluginDevice> candidates, int need) {
        int[] idx = new int[need];
        for (int i = 0; i < need; i++) {
            idx[i] = i;
        }
        List<PluginDevice> best = null;
        Score bestScore = null;
        while (true) {
            List<PluginDevice> set = new ArrayList<>(required);
            for (int i : idx) {
                set.add(candidates.get(i));
            }
            Score s = score(set);
            if (bestScore == null || s.compareTo(bestScore) < 0) {
                bestScore = s;
                best = set.subList(required.size(), set.size());
            }
            int i = need - 1;
            while (i >= 0 && idx[i] == candidates.size() - need + i) {
                i--;
            }
            if (i < 0) {
                return List.copyOf(best);
            }
            idx[i]++;
            for (int j = i + 1; j < need; j++) {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }

    private List<PluginDevice> greedy(
            List<PluginDevice> required, List<PluginDevice> candidates, int need) {
        List<PluginDevice> set = new ArrayList<>(required);
        List<PluginDevice> left = new ArrayList<>(candidates);
        List<PluginDevice> picked = new ArrayList<>();
        while (picked.size() < need) {
            PluginDevice best = null;
            Score bestScore = null;
            for (PluginDevice c : left) {
                set.add(c);
                Score s = score(set);
                set.remove(set.size() - 1);
                if (bestScore == null || s.compareTo(bestScore) < 0) {
                    bestScore = s;
                    best = c;
                }
            }
            set.add(best);
            picked.add(best);
            left.remove(best);
        }
        return picked;
    }

    /**
     * Lower is better: NVLink lanes (negated), NUMA nodes touched, PCIe path cost, then the
     * indices.
     */
    private record Score(long negNvlinkLanes, int numaNodes, long pathCost, List<Integer> indices)
            implements Comparable<Score> {
        @Override
        public int compareTo(Score o) {
            int c = Long.compare(negNvlinkLanes, o.negNvlinkLanes);
            if (c == 0) {
                c = Integer.compare(numaNodes, o.numaNodes);
            }
            if (c == 0) {
                c = Long.compare(pathCost, o.pathCost);
            }
            for (int i = 0; c == 0 && i < Math.min(indices.size(), o.indices.size()); i++) {
                c = Integer.compare(indices.get(i), o.indices.get(i));
            }
            return c;
        }
    }

    private Score score(List<PluginDevice> set) {
        long lanes = 0;
        long cost = 0;
        Set<Integer> numa = new HashSet<>();
        List<Integer> indices = new ArrayList<>();
        for (int i = 0; i < set.size(); i++) {
            int a = set.get(i).gpuIndex();
            numa.add(topology.numaNode(a));
            indices.add(a);
            for (int j = i + 1; j < set.size(); j++) {
                GpuLink l = topology.link(a, set.get(j).gpuIndex());
                if (l.level() == GpuLink.Level.NVLINK) {
                    lanes += l.nvlinks();
                }
                cost += l.level().ordinal();
            }
        }
        indices.sort(null);
        return new Score(-lanes, numa.size(), cost, indices);
    }

    static long combinations(int n, int k) {
        long c = 1;
        for (int i = 1; i <= k; i++) {
            c = c * (n - k + i) / i;
            if (c > EXHAUSTIVE_LIMIT) {
                return c;
            }
        }
        return c;
    }

    // ---- replicas and MIG devices: spread or pack over physical GPUs ----

    private List<PluginDevice> spread(
            List<PluginDevice> required, List<PluginDevice> candidates, int need) {
        Set<String> free = new HashSet<>();
        candidates.forEach(d -> free.add(d.id()));
        required.forEach(d -> free.add(d.id()));
        // devices of this resource on a GPU that are neither available nor must-include are in use
        // already
        Map<Integer, Integer> load = new HashMap<>();
        for (PluginDevice d : resource.devices()) {
            load.merge(d.gpuIndex(), free.contains(d.id()) ? 0 : 1, Integer::sum);
        }
        required.forEach(d -> load.merge(d.gpuIndex(), 1, Integer::sum));
        List<PluginDevice> left = new ArrayList<>(candidates);
        List<PluginDevice> picked = new ArrayList<>();
        while (picked.size() < need) {
            PluginDevice best = null;
            for (PluginDevice c : left) {
                if (best == null || better(c, best, load)) {
                    best = c;
                }
            }
            picked.add(best);
            left.remove(best);
            load.merge(best.gpuIndex(), 1, Integer::sum);
        }
        return picked;
    }

    private boolean better(PluginDevice c, PluginDevice best, Map<Integer, Integer> load) {
        int lc = load.getOrDefault(c.gpuIndex(), 0);
        int lb = load.getOrDefault(best.gpuIndex(), 0);
        if (lc != lb) {
            return policy == AllocationPolicy.DISTRIBUTED ? lc < lb : lc > lb;
        }
        return false; // keep the earlier one: candidates come in the resource's stable order
    }
}
