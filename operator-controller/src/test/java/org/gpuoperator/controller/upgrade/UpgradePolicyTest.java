package org.gpuoperator.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import org.gpuoperator.api.common.DrainSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.WaitForCompletionSpec;
import org.junit.jupiter.api.Test;

class UpgradePolicyTest {

    @Test
    void anEmptySectionGetsUpstreamsDefaults() {
        UpgradePolicy p = UpgradePolicy.from(null);
        assertThat(p.autoUpgrade()).isFalse();
        assertThat(p.maxParallelUpgrades()).isEqualTo(1);
        assertThat(p.maxUnavailable()).isEqualTo(new UpgradePolicy.MaxUnavailable(25, true));
        assertThat(p.podDeletion())
                .isEqualTo(new UpgradePolicy.PodDeletion(false, Duration.ofSeconds(300), false));
        assertThat(p.waitForCompletion().enabled()).isFalse();
        assertThat(p.waitForCompletion().timeout()).isZero();
        assertThat(p.drain().enable()).isFalse();
        assertThat(p.drain().timeout()).isEqualTo(Duration.ofSeconds(300));
        assertThat(p.validationTimeout()).isEqualTo(Duration.ofSeconds(600));
    }

    @Test
    void anNvidiaDriversAutoUpgradeIsTrueUnlessSetFalseAsUpstreamsCrdDefault() {
        DriverUpgradePolicySpec unset = new DriverUpgradePolicySpec();
        unset.setMaxParallelUpgrades(2);
        assertThat(UpgradePolicy.ofNvidiaDriver(unset).autoUpgrade()).isTrue();
        assertThat(UpgradePolicy.ofNvidiaDriver(unset).maxParallelUpgrades()).isEqualTo(2);
        assertThat(UpgradePolicy.from(unset).autoUpgrade()).as("the ClusterPolicy's").isFalse();
        DriverUpgradePolicySpec off = new DriverUpgradePolicySpec();
        off.setAutoUpgrade(false);
        assertThat(UpgradePolicy.ofNvidiaDriver(off).autoUpgrade()).isFalse();
    }

    @Test
    void maxUnavailableIsACountOrAPercentageRoundedUp() {
        assertThat(UpgradePolicy.MaxUnavailable.parse(new IntOrString(2)).of(10)).isEqualTo(2);
        assertThat(UpgradePolicy.MaxUnavailable.parse(new IntOrString("3")).of(10)).isEqualTo(3);
        assertThat(UpgradePolicy.MaxUnavailable.parse(new IntOrString("25%")).of(10)).isEqualTo(3);
        assertThat(UpgradePolicy.MaxUnavailable.parse(new IntOrString("10%")).of(1000))
                .isEqualTo(100);
        assertThat(UpgradePolicy.MaxUnavailable.parse(new IntOrString("1%")).of(1)).isEqualTo(1);
        assertThatThrownBy(() -> UpgradePolicy.MaxUnavailable.parse(new IntOrString("half")))
                .hasMessage(
                        "spec.driver.upgradePolicy.maxUnavailable: 'half' is neither a count nor a"
                                + " percentage (e.g. 2 or 25%)");
    }

    @Test
    void aSelectorThatCannotBeReadNamesItsField() {
        DriverUpgradePolicySpec s = new DriverUpgradePolicySpec();
        DrainSpec d = new DrainSpec();
        d.setPodSelector("app in a,b");
        s.setDrain(d);
        assertThatThrownBy(() -> UpgradePolicy.from(s))
                .hasMessage(
                        "spec.driver.upgradePolicy.drain.podSelector: cannot read the label selector"
                                + " requirement 'app in a': values must be in parentheses");
        WaitForCompletionSpec w = new WaitForCompletionSpec();
        w.setPodSelector("a=b=c");
        s.setDrain(null);
        s.setWaitForCompletion(w);
        assertThatThrownBy(() -> UpgradePolicy.from(s))
                .hasMessageStartingWith("spec.driver.upgradePolicy.waitForCompletion.podSelector:");
    }

    @Test
    void selectorsReadEveryKubernetesForm() {
        PodSelector s = PodSelector.parse("f", "app=train, tier!=db,env in (a, b),!legacy,team");
        assertThat(s.matches(Map.of("app", "train", "env", "a", "team", "x"))).isTrue();
        assertThat(s.matches(Map.of("app", "train", "env", "c", "team", "x"))).isFalse();
        assertThat(s.matches(Map.of("app", "train", "env", "a", "team", "x", "legacy", "1")))
                .isFalse();
        assertThat(s.matches(Map.of("app", "train", "env", "a", "team", "x", "tier", "db")))
                .isFalse();
        assertThat(s.matches(Map.of("app", "train", "env", "a"))).isFalse();
        assertThat(PodSelector.parse("f", "k notin (x)").matches(Map.of())).isTrue();
        assertThat(PodSelector.parse("f", "k==v").matches(Map.of("k", "v"))).isTrue();
        assertThat(PodSelector.parse("f", " ").selectsAll()).isTrue();
    }

    @Test
    void podsRequestingGpuOrMigResourcesAreGpuPods() {
        assertThat(NodePod.requestsGpu(pod("nvidia.com/gpu", false))).isTrue();
        assertThat(NodePod.requestsGpu(pod("nvidia.com/mig-1g.10gb", true))).isTrue();
        assertThat(NodePod.requestsGpu(pod("nvidia.com/gpu.shared", false))).isTrue();
        assertThat(NodePod.requestsGpu(pod("cpu", false))).isFalse();
    }

    @Test
    void thePodViewReadsOwnershipVolumesAndPhase() {
        Pod p =
                new PodBuilder(pod("nvidia.com/gpu", false))
                        .editMetadata()
                        .addNewOwnerReference()
                        .withKind("DaemonSet")
                        .withName("ds")
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .editSpec()
                        .addNewVolume()
                        .withName("scratch")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .endVolume()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Succeeded")
                        .endStatus()
                        .build();
        NodePod v = NodePod.of(p, true);
        assertThat(v.ref()).isEqualTo("work/p");
        assertThat(v.nodeBound()).isTrue();
        assertThat(v.controlled()).isTrue();
        assertThat(v.usesEmptyDir()).isTrue();
        assertThat(v.finished()).isTrue();
        assertThat(v.evictionBlocked()).isTrue();
        NodePod bare = NodePod.of(pod("nvidia.com/gpu", false), false);
        assertThat(bare.controlled()).isFalse();
        assertThat(bare.nodeBound()).isFalse();
        assertThat(bare.usesEmptyDir()).isFalse();
    }

    private static Pod pod(String resource, boolean limitsOnly) {
        var b =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("work")
                        .withName("p")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("c")
                        .withNewResources()
                        .withLimits(Map.of(resource, new Quantity("1")));
        if (!limitsOnly) {
            b = b.withRequests(Map.of(resource, new Quantity("1")));
        }
        return b.endResources().endContainer().endSpec().build();
    }
}
