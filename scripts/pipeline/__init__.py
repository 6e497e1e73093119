"""The snippet pipeline: discover -> key -> run -> capture -> write atomically -> report.

Run it from the repository root:  python -m scripts.pipeline build | check [--full]
"""
