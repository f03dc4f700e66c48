"""The state of the telecom user's phone as its tools read it: the status bar, whether
mobile data and picture messages work, the speed test, and the network search every
setting change sets off (tau2's rules)."""

from __future__ import annotations

from ....domains import Toolkit
from ._phone_models import (
    APNNames,
    AppPermissions,
    NetworkModePreference,
    NetworkStatus,
    NetworkTechnology,
    PerformanceLevel,
    Phone,
    PhoneDB,
    SignalStrength,
    SimStatus,
)

_BARS = {
    SignalStrength.NONE: "📵 No Signal",
    SignalStrength.POOR: "📶¹ Poor",
    SignalStrength.FAIR: "📶² Fair",
    SignalStrength.GOOD: "📶³ Good",
    SignalStrength.EXCELLENT: "📶⁴ Excellent",
}
_SPEED_RANGE = {
    NetworkTechnology.TWO_G: (0.1, 0.4),
    NetworkTechnology.THREE_G: (1.0, 5.0),
    NetworkTechnology.FOUR_G: (10.0, 100.0),
    NetworkTechnology.FIVE_G: (50.0, 500.0),
    NetworkTechnology.NONE: (0.0, 0.0),
}
_SIGNAL_FACTOR = {
    SignalStrength.POOR: 0.2,
    SignalStrength.FAIR: 0.5,
    SignalStrength.GOOD: 0.8,
    SignalStrength.EXCELLENT: 1.0,
    SignalStrength.NONE: 0.0,
}
_MODE_TECH = {
    NetworkModePreference.FOUR_G_ONLY: NetworkTechnology.FOUR_G,
    NetworkModePreference.THREE_G_ONLY: NetworkTechnology.THREE_G,
    NetworkModePreference.TWO_G_ONLY: NetworkTechnology.TWO_G,
}


AppPermissionsNames = tuple(AppPermissions.model_fields)
"""The permissions tracked for every app."""


class PhoneState(Toolkit[PhoneDB]):
    """The phone's derived state, under its tools (`PhoneTools`)."""

    @property
    def device(self) -> Phone:
        """The phone's state."""
        return self.db.device

    def status_bar(self) -> str:
        """The status bar as text: signal, network, data, Wi-Fi, VPN, battery."""
        d = self.device
        parts: list[str] = []
        if d.airplane_mode:
            parts.append("✈️ Airplane Mode")
        else:
            parts.append(_BARS.get(d.network_signal_strength, "📵 No Signal"))
            if d.network_technology_connected != NetworkTechnology.NONE:
                parts.append(d.network_technology_connected.value)
            if d.data_enabled and d.network_technology_connected != NetworkTechnology.NONE:
                parts.append("📱 Data Enabled")
                if d.data_saver_mode:
                    parts.append("🔽 Data Saver")
            else:
                parts.append("📵 Data Disabled")
        if d.wifi_enabled and d.wifi_connected:
            parts.append(f"📡 Connected to {d.wifi_ssid}" if d.wifi_ssid else "📡 Enabled")
        if d.vpn_connected:
            parts.append("🔒 VPN Connected")
        parts.append(f"🔋 {d.battery_level}%")
        return " | ".join(parts)

    def _with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self.status_bar()}"

    def sim_status(self) -> SimStatus:
        """The SIM's state (missing when it is out of its slot)."""
        return SimStatus.MISSING if self.device.sim_card_missing else self.device.sim_card_status

    def mobile_data_working(self) -> bool:
        """True when mobile data can flow: radio on, signal, service, roaming allowed when
        abroad, data on, allowance left."""
        d, around = self.device, self.db.surroundings
        if d.airplane_mode or d.network_signal_strength == SignalStrength.NONE:
            return False
        if d.network_connection_status == NetworkStatus.NO_SERVICE:
            return False
        if around.is_abroad and not (d.roaming_enabled and around.roaming_allowed):
            return False
        return d.data_enabled and not around.mobile_data_usage_exceeded

    def speed(self) -> tuple[float | None, str]:
        """The speed test's (Mbps, description); (None, "No Connection") without data."""
        if not self.mobile_data_working():
            return None, "No Connection"
        d = self.device
        factor = 1.0
        if (
            d.vpn_connected
            and d.vpn_details
            and d.vpn_details.server_performance == PerformanceLevel.POOR
        ):
            factor = 0.1
        if d.data_saver_mode:
            factor *= 0.2
        low, high = _SPEED_RANGE.get(d.network_technology_connected, (0.0, 0.0))
        mbps = round(
            (low + high) / 2.0 * _SIGNAL_FACTOR.get(d.network_signal_strength, 0.0) * factor, 2
        )
        for limit, name in ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good")):
            if mbps < limit:
                return mbps, name
        return mbps, "Excellent"

    def mms_works(self) -> bool:
        """True when the messaging app can send a picture message."""
        d = self.device
        if not self.mobile_data_working():
            return False
        if d.network_technology_connected == NetworkTechnology.TWO_G:
            return False
        if d.wifi_calling_enabled and d.wifi_calling_mms_over_wifi:
            return False  # the carrier does not carry MMS over Wi-Fi
        if d.active_apn_settings.mmsc_url is None:
            return False
        app = d.app_statuses.get("messaging")
        return app is not None and app.permissions.storage and app.permissions.sms

    def simulate_network_search(self) -> None:
        """Reconnect to the best network the SIM, the mode, the APN and the line allow."""
        d, around = self.device, self.db.surroundings
        if self.sim_status() == SimStatus.ACTIVE:
            d.network_connection_status = NetworkStatus.CONNECTED
            pref = d.network_mode_preference
            tech = _MODE_TECH.get(pref, NetworkTechnology.FOUR_G)
            if pref == NetworkModePreference.FOUR_G_5G_PREFERRED:
                five = around.signal_strength.get(NetworkTechnology.FIVE_G, SignalStrength.NONE)
                tech = (
                    NetworkTechnology.FOUR_G
                    if five == SignalStrength.NONE
                    else NetworkTechnology.FIVE_G
                )
            d.network_technology_connected = tech
            d.network_signal_strength = around.signal_strength.get(tech, SignalStrength.NONE)
        else:
            self._no_service()
        if (
            d.airplane_mode
            or d.active_apn_settings.apn_name == APNNames.BROKEN
            or not around.line_active
        ):
            self._no_service()

    def _no_service(self) -> None:
        d = self.device
        d.network_connection_status = NetworkStatus.NO_SERVICE
        d.network_technology_connected = NetworkTechnology.NONE
        d.network_signal_strength = SignalStrength.NONE
