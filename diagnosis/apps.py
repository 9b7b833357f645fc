from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    name = "diagnosis"
    verbose_name = "Diagnosis"

    def ready(self) -> None:
        from django.core import checks

        from diagnosis.checks import check_server_registry

        checks.register(check_server_registry)
