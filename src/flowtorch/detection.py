"""``oneflow.detection``: detection-target ops on tensor buffers (boxes, polygons, masks) and v0.1.2's
Mask R-CNN ops (boxes, anchors, NMS, RoIAlign …)."""

from flowtorch._src.data.object_ops import object_bbox_flip as object_bbox_flip
from flowtorch._src.data.object_ops import object_bbox_scale as object_bbox_scale
from flowtorch._src.data.object_ops import object_segm_poly_flip as object_segmentation_polygon_flip
from flowtorch._src.data.object_ops import object_segm_poly_scale as object_segmentation_polygon_scale
from flowtorch._src.data.object_ops import object_segm_poly_to_mask as object_segmentation_polygon_to_mask
from flowtorch._src.layers import affine_channel as affine_channel
from flowtorch._src.ops.detection_ops import anchor_generate as anchor_generate
from flowtorch._src.ops.detection_ops import box_decode as box_decode
from flowtorch._src.ops.detection_ops import box_encode as box_encode
from flowtorch._src.ops.detection_ops import calc_iou_matrix as calc_iou_matrix
from flowtorch._src.ops.detection_ops import clip_to_image as clip_to_image
from flowtorch._src.ops.detection_ops import extract_piece_slice_id as extract_piece_slice_id
from flowtorch._src.ops.detection_ops import identify_non_small_boxes as identify_non_small_boxes
from flowtorch._src.ops.detection_ops import identify_outside_anchors as identify_outside_anchors
from flowtorch._src.ops.detection_ops import level_map as level_map
from flowtorch._src.ops.detection_ops import maskrcnn_split as maskrcnn_split
from flowtorch._src.ops.detection_ops import nms as nms
from flowtorch._src.ops.detection_ops import pos_neg_sampler as maskrcnn_positive_negative_sample
from flowtorch._src.ops.detection_ops import pos_neg_sampler as pos_neg_sampler
from flowtorch._src.ops.detection_roi_ops import masks_crop_and_resize as masks_crop_and_resize
from flowtorch._src.ops.detection_roi_ops import roi_align as roi_align
from flowtorch._src.ops.detection_roi_ops import upsample_nearest as upsample_nearest
from flowtorch._src.ops.early_ops import smooth_l1 as smooth_l1  # (the 2020 master's, before v0.1.0)

__all__ = ["object_bbox_flip", "object_bbox_scale", "object_segmentation_polygon_flip",
           "object_segmentation_polygon_scale", "object_segmentation_polygon_to_mask",
           "affine_channel", "anchor_generate", "box_decode", "box_encode", "calc_iou_matrix", "clip_to_image",
           "extract_piece_slice_id", "identify_non_small_boxes", "identify_outside_anchors", "level_map",
           "maskrcnn_positive_negative_sample", "maskrcnn_split", "masks_crop_and_resize", "nms", "pos_neg_sampler",
           "roi_align", "smooth_l1", "upsample_nearest"]
