"""``oneflow.image``: image ops of the in-job data pipeline."""

from flowtorch._src.data.image_buffer_ops import image_batch_align as batch_align
from flowtorch._src.data.image_buffer_ops import image_decode as decode
from flowtorch._src.data.image_buffer_ops import image_flip as flip
from flowtorch._src.data.image_buffer_ops import image_normalize as normalize
from flowtorch._src.data.image_buffer_ops import image_random_crop as random_crop
from flowtorch._src.data.image_ops import CropMirrorNormalize as CropMirrorNormalize
from flowtorch._src.data.image_ops import CropMirrorNormalize as crop_mirror_normalize
from flowtorch._src.data.image_ops import image_resize as Resize  # OneFlow's name
from flowtorch._src.data.image_ops import image_resize as resize
from flowtorch._src.data.image_ops import image_target_resize as target_resize

__all__ = ["CropMirrorNormalize", "Resize", "batch_align", "crop_mirror_normalize", "decode", "flip", "normalize",
           "random_crop", "resize", "target_resize"]
