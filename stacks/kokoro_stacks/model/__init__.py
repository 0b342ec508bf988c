"""The model stack: Kokoro on a SageMaker real-time endpoint, its image and its autoscaling."""
