from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    name = "diagnosis"
    verbose_name = "Diagnosis"

    def ready(self) -> None:
        from django.core import checks

        from diagnosis.checks import check_server_registry
        from diagnosis.engine import runtime

        checks.register(check_server_registry)
        # The engine's plan: registered here, so diagnosis.plans imports no engine.
        runtime.register_plans()
