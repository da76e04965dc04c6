package org.gpuoperator.controller.mustgather;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code must-gather} collected: files under one root directory, and the index entries (every
 * item, with its file or why there is none). Built by {@link MustGather}, written by {@link TarGz}.
 *
 * @param root the archive's top directory, {@code must-gather-<timestamp>}
 */
public record Bundle(String root, List<File> files, List<Item> items) {

    /** The index's name, under {@link #root}. */
    public static final String INDEX = "index.yaml";

    /** A file of the archive. */
    public record File(String path, String content) {}

    /**
     * One index entry.
     *
     * @param item what was collected, e.g. {@code pod gpu-operator/x log of container c}
     * @param file its file, null when it has none
     * @param error why it could not be collected, null when it was
     * @param note a remark (e.g. none found), null when none
     */
    public record Item(String item, String file, String error, String note) {
        public boolean failed() {
            return error != null;
        }
    }

    public Bundle {
        files = List.copyOf(files);
        items = List.copyOf(items);
    }

    /** The items that failed. */
    public List<Item> errors() {
        List<Item> out = new ArrayList<>();
        items.stream().filter(Item::failed).forEach(out::add);
        return out;
    }
}
