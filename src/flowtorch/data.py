"""``oneflow.data``: in-job data readers and decoders, and ``load_mnist``."""

from flowtorch._src.data.coco_reader import coco_reader as coco_reader
from flowtorch._src.data.decoders import OFRecordBytesDecoder as OFRecordBytesDecoder
from flowtorch._src.data.decoders import OFRecordBytesDecoder as ofrecord_bytes_decoder
from flowtorch._src.data.decoders import OFRecordRawDecoder as OFRecordRawDecoder
from flowtorch._src.data.decoders import OFRecordRawDecoder as ofrecord_raw_decoder
from flowtorch._src.data.gpt_loader import MegatronGPTMMapDataLoader as MegatronGPTMMapDataLoader
from flowtorch._src.data.gpt_loader import megatron_gpt_mmap_data_loader as megatron_gpt_mmap_data_loader
from flowtorch._src.data.image_decoders import OFRecordImageDecoder as OFRecordImageDecoder
from flowtorch._src.data.image_decoders import OFRecordImageDecoder as ofrecord_image_decoder
from flowtorch._src.data.image_decoders import OFRecordImageDecoderRandomCrop as OFRecordImageDecoderRandomCrop
from flowtorch._src.data.image_decoders import (
    OFRecordImageDecoderRandomCrop as ofrecord_image_decoder_random_crop,
)
from flowtorch._src.data.image_decoders import (
    ofrecord_image_classification_reader as ofrecord_image_classification_reader,
)
from flowtorch._src.data.image_ops import ImageDecoderRandomCropResize as ImageDecoderRandomCropResize
from flowtorch._src.data.image_ops import ImageDecoderRandomCropResize as image_decoder_random_crop_resize
from flowtorch._src.data.legacy import BlobConf as BlobConf
from flowtorch._src.data.legacy import BytesListCodec as BytesListCodec
from flowtorch._src.data.legacy import ImageCodec as ImageCodec
from flowtorch._src.data.legacy import ImagePreprocessor as ImagePreprocessor
from flowtorch._src.data.legacy import ImageResizePreprocessor as ImageResizePreprocessor
from flowtorch._src.data.legacy import NormByChannelPreprocessor as NormByChannelPreprocessor
from flowtorch._src.data.legacy import RawCodec as RawCodec
from flowtorch._src.data.legacy import decode_ofrecord as decode_ofrecord
from flowtorch._src.data.legacy import ofrecord_loader as ofrecord_loader
from flowtorch._src.data.onerec import OneRecDecoder as OneRecDecoder
from flowtorch._src.data.onerec import OneRecDecoder as onerec_decoder
from flowtorch._src.data.onerec import onerec_reader as onerec_reader
from flowtorch._src.data.random_source import decode_random as decode_random
from flowtorch._src.data.readers import ofrecord_reader as ofrecord_reader
from flowtorch._src.mnist import load_mnist as load_mnist

__all__ = [
    "BlobConf", "BytesListCodec", "coco_reader", "ImageCodec", "ImageDecoderRandomCropResize",
    "image_decoder_random_crop_resize",
    "ImagePreprocessor", "ImageResizePreprocessor", "MegatronGPTMMapDataLoader", "megatron_gpt_mmap_data_loader",
    "NormByChannelPreprocessor", "RawCodec", "decode_ofrecord", "ofrecord_loader", "OFRecordBytesDecoder",
    "OFRecordImageDecoder", "OFRecordImageDecoderRandomCrop", "OFRecordRawDecoder", "decode_random", "load_mnist",
    "ofrecord_bytes_decoder", "ofrecord_image_classification_reader", "ofrecord_image_decoder",
    "ofrecord_image_decoder_random_crop", "ofrecord_raw_decoder", "ofrecord_reader", "OneRecDecoder",
    "onerec_decoder", "onerec_reader",
]
