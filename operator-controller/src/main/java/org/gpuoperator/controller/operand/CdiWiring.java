package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * What {@code spec.cdi} sets, as upstream's operator sets it: the toolkit's CDI env, the device
 * plugin's list strategy, and the RuntimeClasses {@code nvidia-cdi} and {@code nvidia-legacy}. User
 * env of the operand ({@code toolkit.env}, {@code devicePlugin.env}) wins over each variable.
 */
final class CdiWiring {

    /** The prefix of the device plugin's CDI annotations, and what the runtime reads. */
    static final String ANNOTATION_PREFIX = "cdi.k8s.io/";

    /** The RuntimeClass names, fixed as upstream's; their handlers follow the toolkit's. */
    static final String CDI_CLASS = "nvidia-cdi";

    static final String LEGACY_CLASS = "nvidia-legacy";

    // the toolkit agent's variables (upstream's names)
    static final String CDI_ENABLED = "CDI_ENABLED";
    static final String RUNTIME_MODE = "NVIDIA_CONTAINER_RUNTIME_MODE";
    static final String RUNTIME_ANNOTATION_PREFIXES =
            "NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES";
    static final String RUNTIME_DEFAULT_KIND = "NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND";

    /**
     * The kind a bare {@code NVIDIA_VISIBLE_DEVICES} name resolves in under CDI: the management
     * spec's, whose {@code all} holds every GPU node (what operands asking for {@code all} need).
     */
    static final String MANAGEMENT_KIND = "management.nvidia.com/gpu";

    // the device plugin's variables
    static final String DEVICE_LIST_STRATEGY = "DEVICE_LIST_STRATEGY";
    static final String CDI_ANNOTATION_PREFIX = "CDI_ANNOTATION_PREFIX";

    private CdiWiring() {}

    /**
     * CDI on: {@code CDI_ENABLED=true}, the annotation prefix the runtime reads, the management
     * default kind, and with {@code cdi.default} {@code NVIDIA_CONTAINER_RUNTIME_MODE=cdi}; off:
     * {@code CDI_ENABLED=false}.
     */
    static List<EnvVar> toolkitEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>();
        PolicySettings.Cdi cdi = policy.cdi();
        env.add(OperandModel.env(CDI_ENABLED, Boolean.toString(cdi.enabled())));
        if (cdi.enabled()) {
            env.add(OperandModel.env(RUNTIME_ANNOTATION_PREFIXES, ANNOTATION_PREFIX));
            env.add(OperandModel.env(RUNTIME_DEFAULT_KIND, MANAGEMENT_KIND));
            if (cdi.defaultMode()) {
                env.add(OperandModel.env(RUNTIME_MODE, "cdi"));
            }
        }
        return withoutUserSet(env, policy, Operand.CONTAINER_TOOLKIT);
    }

    /**
     * CDI on: {@code DEVICE_LIST_STRATEGY=cdi-annotations,cdi-cri} (the CRI field for containerd
     * 1.7 and later, the annotation for the {@code nvidia} runtime below that) and {@code
     * CDI_ANNOTATION_PREFIX}; off: {@code envvar}.
     */
    static List<EnvVar> devicePluginEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>();
        if (policy.cdi().enabled()) {
            env.add(OperandModel.env(DEVICE_LIST_STRATEGY, "cdi-annotations,cdi-cri"));
            env.add(OperandModel.env(CDI_ANNOTATION_PREFIX, ANNOTATION_PREFIX));
        } else {
            env.add(OperandModel.env(DEVICE_LIST_STRATEGY, "envvar"));
        }
        return withoutUserSet(env, policy, Operand.DEVICE_PLUGIN);
    }

    /** Whether the toolkit writes the CDI spec: its {@code CDI_ENABLED}, the user's first. */
    static boolean toolkitWritesSpec(PolicySettings policy) {
        String user = ToolkitModel.userEnv(policy).get(CDI_ENABLED);
        return user == null ? policy.cdi().enabled() : "true".equals(user);
    }

    /**
     * {@code nvidia-cdi} and {@code nvidia-legacy}, with the handlers the toolkit registers next to
     * the {@code nvidia} one: {@code <runtimeClass>-cdi} and {@code <runtimeClass>-legacy} ({@code
     * nvidia-cdi}, {@code nvidia-legacy} for the default runtime class). None when CDI is off.
     */
    static List<RuntimeClass> runtimeClasses(PolicySettings policy) {
        if (!policy.cdi().enabled()) {
            return List.of();
        }
        return List.of(
                runtimeClass(CDI_CLASS, policy.runtimeClass() + "-cdi"),
                runtimeClass(LEGACY_CLASS, policy.runtimeClass() + "-legacy"));
    }

    /** The classes {@link #runtimeClasses} creates, to delete while CDI is off. */
    static List<ObjectRef> runtimeClassRefs(PolicySettings policy) {
        if (policy.cdi().enabled()) {
            return List.of();
        }
        return List.of(
                new ObjectRef(RuntimeClass.class, null, CDI_CLASS),
                new ObjectRef(RuntimeClass.class, null, LEGACY_CLASS));
    }

    static RuntimeClass runtimeClass(String name, String handler) {
        return new RuntimeClassBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(OperandObjects.commonLabels(PodContract.MANAGED_BY))
                .endMetadata()
                .withHandler(handler)
                .build();
    }

    private static List<EnvVar> withoutUserSet(
            List<EnvVar> env, PolicySettings policy, Operand operand) {
        if (!policy.operands().containsKey(operand)) {
            return env;
        }
        Set<String> user =
                policy.operand(operand).env().stream()
                        .map(EnvVar::getName)
                        .collect(Collectors.toSet());
        return env.stream().filter(e -> !user.contains(e.getName())).toList();
    }
}
