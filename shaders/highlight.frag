#version 150
// wec client, legal-destination highlight (fragment stage): a glow over every square
// the geometry covers (yellow for moves, as the manual says; the client picks other
// colours for other meanings), brighter and lighter towards the square's border, fading
// to nothing just inside the border (soft edges), pulsing with wec_time. Alpha blended: the geometry
// needs TransparencyAttrib.M_alpha (client/shading.py sets it).
// Squares come from the world grid (wec_grid_origin is a square corner, wec_square_size
// the side), so one node may cover any number of squares and needs no UVs.

uniform vec4 p3d_ColorScale;

uniform vec4 wec_highlight_color;   // rgb: the colour; a: opacity at the square's centre
uniform float wec_time;             // seconds
uniform float wec_pulse_period;     // seconds
uniform float wec_pulse_minimum;    // intensity at the pulse's low point (peak: 1)
uniform vec2 wec_grid_origin;       // world xy of a square corner
uniform float wec_square_size;      // world units

in vec3 v_world_position;

out vec4 o_color;

const float SOFT_EDGE_START = 0.02; // squares from the border: transparent up to here
const float SOFT_EDGE_END = 0.08;   // squares from the border: fully faded in from here
const float GLOW_FALLOFF = 0.08;    // squares: how far the border glow reaches inward
const float GLOW_ALPHA = 0.3;       // extra opacity at the border
const float GLOW_LIGHTEN = 0.5;     // the glow is the colour this far towards white

void main() {
    vec2 in_square = fract((v_world_position.xy - wec_grid_origin) / wec_square_size);
    vec2 to_borders = min(in_square, 1.0 - in_square);
    float to_border = min(to_borders.x, to_borders.y);   // 0 at the border, 0.5 centre

    float soft_edge = smoothstep(SOFT_EDGE_START, SOFT_EDGE_END, to_border);
    float glow = exp(-to_border / GLOW_FALLOFF);
    float pulse = 0.5 + 0.5 * cos(6.28318531 * wec_time / wec_pulse_period);
    float intensity = mix(wec_pulse_minimum, 1.0, pulse);

    vec3 glow_color = mix(wec_highlight_color.rgb, vec3(1.0), GLOW_LIGHTEN);
    vec3 rgb = mix(wec_highlight_color.rgb, glow_color, glow * pulse);
    float alpha = min(wec_highlight_color.a + GLOW_ALPHA * glow, 1.0);
    o_color = vec4(rgb, alpha * intensity * soft_edge) * p3d_ColorScale;
}
