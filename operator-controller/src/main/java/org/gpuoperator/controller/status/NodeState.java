package org.gpuoperator.controller.status;

import java.util.Map;
import org.gpuoperator.controller.nodes.NodePlan;

/** A node after this reconcile's label changes: the labels it now carries and the gate's verdict. */
public record NodeState(String name, Map<String, String> labels, NodePlan plan) {}
