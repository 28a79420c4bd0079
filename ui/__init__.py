"""The Gradio studio (``autoalign.ui``)."""
