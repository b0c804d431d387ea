"""``oneflow.detection``: detection-target ops on tensor buffers (boxes, polygons, masks)."""

from flowtorch._src.data.object_ops import object_bbox_flip as object_bbox_flip
from flowtorch._src.data.object_ops import object_bbox_scale as object_bbox_scale
from flowtorch._src.data.object_ops import object_segm_poly_flip as object_segmentation_polygon_flip
from flowtorch._src.data.object_ops import object_segm_poly_scale as object_segmentation_polygon_scale
from flowtorch._src.data.object_ops import object_segm_poly_to_mask as object_segmentation_polygon_to_mask

__all__ = ["object_bbox_flip", "object_bbox_scale", "object_segmentation_polygon_flip",
           "object_segmentation_polygon_scale", "object_segmentation_polygon_to_mask"]
