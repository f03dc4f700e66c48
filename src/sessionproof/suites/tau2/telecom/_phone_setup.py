"""The environment functions of the user's side: how tasks set the scene (break the phone,
place the user abroad) and what they assert on the phone afterwards. Not tools: the user
cannot call them."""

from __future__ import annotations

from ._phone import PhoneTools
from ._phone_models import APNNames, NetworkStatus, PerformanceLevel, SimStatus
from ._phone_state import AppPermissionsNames


class PhoneEnv(PhoneTools):
    """The user's phone with the functions tasks set up and assert with."""

    def set_user_info(self, name: str, phone_number: str) -> None:
        """Who the user is (their line is found by this number)."""
        self.db.surroundings.name = name
        self.db.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        """Place the user at home or abroad."""
        self.db.surroundings.is_abroad = abroad

    def turn_airplane_mode_on(self) -> str:
        """Airplane mode on, whatever it was."""
        if not self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        """Airplane mode off, whatever it was."""
        if self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now OFF."

    def unseat_sim_card(self) -> str:
        """Take the SIM out (reseating it fixes this)."""
        self.device.sim_card_missing = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: str) -> str:
        """Lock the SIM by PIN or PUK (no tool fixes this)."""
        if mode == "pin":
            self.device.sim_card_status = SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = SimStatus.LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    def _flip_data(self) -> bool:
        d = self.device
        d.data_enabled = not d.data_enabled
        self.simulate_network_search()
        return d.data_enabled

    def turn_data_on(self) -> str:
        """Mobile data on."""
        self.device.data_enabled = True
        return "Data connection restored."

    def turn_data_off(self) -> str:
        """Mobile data off, whatever it was."""
        if self._flip_data():
            self._flip_data()
        return "Data connection broken."

    def _flip_roaming(self) -> bool:
        d = self.device
        d.roaming_enabled = not d.roaming_enabled
        self.simulate_network_search()
        return d.roaming_enabled

    def turn_roaming_on(self) -> str:
        """Data roaming on, whatever it was."""
        if not self._flip_roaming():
            self._flip_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        """Data roaming off, whatever it was."""
        if self._flip_roaming():
            self._flip_roaming()
        return "Data Roaming is now OFF."

    def turn_data_saver_mode_on(self) -> str:
        """Data Saver on."""
        self.device.data_saver_mode = True
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        """Data Saver off."""
        self.device.data_saver_mode = False
        return "Data Saver Mode is now OFF."

    def break_apn_settings(self) -> str:
        """Misconfigure the APN: no service until it is reset and the phone restarted."""
        self.device.active_apn_settings.apn_name = APNNames.BROKEN
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        """Clear the MMSC address: no picture messages until the APN is reset."""
        self.device.active_apn_settings.mmsc_url = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        """Set Wi-Fi Calling, and MMS over Wi-Fi when given."""
        self.device.wifi_calling_enabled = enabled
        text = f"Wi-Fi Calling is now {'ON' if enabled else 'OFF'}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            text += f"\nMMS over Wi-Fi is now {'ON' if mms_over_wifi else 'OFF'}."
        return text

    def break_vpn(self) -> str:
        """Connect a VPN whose server is slow (mobile data slows to a crawl)."""
        self._vpn_up()
        assert self.device.vpn_details is not None
        self.device.vpn_details.server_performance = PerformanceLevel.POOR
        return "VPN connection broken."

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        """Take a permission away from an app."""
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if app is None:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if permission not in AppPermissionsNames:
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app.permissions, permission, False)
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    # -- assertions ------------------------------------------------------------------------

    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        """True when airplane mode is as expected."""
        return self.device.airplane_mode == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        """True when the cellular connection is in the expected state."""
        return self.device.network_connection_status == NetworkStatus(expected_status)

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        """True when mobile data works (or not) as expected."""
        return self.mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        """True when data roaming is on (or off) as expected."""
        return self.device.roaming_enabled == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        """True when Data Saver is on (or off) as expected."""
        return self.device.data_saver_mode == expected_status

    def assert_internet_speed(
        self, expected_speed: float, expected_desc: str | None = None
    ) -> bool:
        """True when the speed test reaches `expected_speed` (and, when given, reads as
        `expected_desc`)."""
        mbps, name = self.speed()
        fast = (mbps or 0.0) >= expected_speed
        return fast if expected_desc is None else fast and name.lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        """True when the speed test does not read Excellent."""
        return self.speed()[1].lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        """True when picture messages work (or not) as expected."""
        return self.mms_works() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        """True when the allowance is used up (or not) as expected."""
        return self.db.surroundings.mobile_data_usage_exceeded == expected_status
