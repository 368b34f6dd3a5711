"""TV/film extractor: ffmpeg -> Whisper ASR or subtitle import -> ECAPA-TDNN speaker identification."""
