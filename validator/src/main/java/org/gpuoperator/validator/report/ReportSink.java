package org.gpuoperator.validator.report;

/** Where the validator reports its node's state (the Node's annotations; a list in tests). */
public interface ReportSink {

    /** Returns true when something changed where the report went. */
    boolean publish(NodeReport report);
}
