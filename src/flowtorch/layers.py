"""``oneflow.layers``: layers that create their own variables."""

from flowtorch._src.layers import affine_channel as affine_channel
from flowtorch._src.layers import batch_normalization as batch_normalization
from flowtorch._src.layers import batch_normalization_add_relu as batch_normalization_add_relu
from flowtorch._src.layers import batch_normalization_relu as batch_normalization_relu
from flowtorch._src.layers import categorical_ordinal_encoder as categorical_ordinal_encoder
from flowtorch._src.layers import conv1d as conv1d
from flowtorch._src.layers import conv2d as conv2d
from flowtorch._src.layers import conv3d as conv3d
from flowtorch._src.layers import dense as dense
from flowtorch._src.layers import layer_norm as layer_norm
from flowtorch._src.layers import prelu as prelu
from flowtorch._src.layers import upsample_2d as upsample_2d
from flowtorch._src.ops.grad_ops import layer_norm_grad as layer_norm_grad
from flowtorch._src.ops.grad_ops import layer_norm_param_grad as layer_norm_param_grad

__all__ = [
    "affine_channel",
    "batch_normalization", "batch_normalization_add_relu", "batch_normalization_relu", "conv1d", "conv2d", "conv3d",
    "dense", "layer_norm", "prelu", "upsample_2d",
    "categorical_ordinal_encoder", "layer_norm_grad", "layer_norm_param_grad",
]
